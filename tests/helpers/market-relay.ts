// A relay between a connecting site and a test market (tests of installing from another Atrium's
// market): passes every request on, and lets the test rewrite an answer's bytes on the way (swap a
// package, change a signed sha256), as a compromised server or a man in the middle would.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MarketRelay {
  url: string;
  close(): void;
}

/** Relays to `upstream`; `rewrite(path, body)` returns the bytes to answer with instead (or `body`). */
export async function startMarketRelay(upstream: () => string, rewrite: (path: string, body: Buffer) => Buffer): Promise<MarketRelay> {
  const relay = createServer((req, res) => {
    void (async () => {
      const answer = await fetch(`${upstream()}${req.url}`, { headers: { authorization: req.headers.authorization ?? '', accept: req.headers.accept ?? '*/*', 'think-lang': String(req.headers['think-lang'] ?? '') } });
      const body = rewrite(req.url ?? '', Buffer.from(await answer.arrayBuffer()));
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream', 'content-length': String(body.length) });
      res.end(body);
    })().catch(() => { res.writeHead(502); res.end(); });
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`, close: () => relay.close() };
}
