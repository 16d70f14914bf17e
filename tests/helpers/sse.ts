// A minimal server-sent-events client for tests: collects parsed events from one connection.
import { request, type ClientRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { scaled } from './time-scale.mjs';

export interface SseEvent { id: string; event: string; data: Record<string, unknown> }

export interface SseClient {
  events: SseEvent[];
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Resolves with the first event (from `from` on) that matches, or rejects after `ms`. */
  waitFor(match: (e: SseEvent) => boolean, ms?: number, from?: number): Promise<SseEvent>;
  /** Whether the server ended the response (or the connection went). */
  readonly ended: boolean;
  /** Resolves once the server ends the response, or rejects after `ms`. */
  waitForEnd(ms?: number): Promise<void>;
  close(): void;
}

export function openSse(base: string, path: string, headers: Record<string, string>): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const waiters = new Set<() => void>();
    let req: ClientRequest | null = null;
    // https (a proxy with a self-signed certificate in tests): the Host header names the certificate.
    const url = new URL(`${base}${path}`);
    const options: RequestOptions & { servername?: string; rejectUnauthorized?: boolean } = { headers: { accept: 'text/event-stream', ...headers } };
    if (url.protocol === 'https:') Object.assign(options, { servername: headers.host ?? url.hostname, rejectUnauthorized: false, agent: false });
    req = (url.protocol === 'https:' ? httpsRequest : request)(url, options, (res) => {
      let buffer = '';
      let ended = false;
      const onEnd = new Set<() => void>();
      const finish = (): void => { ended = true; for (const w of onEnd) w(); };
      res.once('end', finish);
      res.once('close', finish);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const e: SseEvent = { id: '', event: 'message', data: {} };
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) e.id = line.slice(4);
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (!data) continue;
          e.data = JSON.parse(data) as Record<string, unknown>;
          events.push(e);
          for (const w of waiters) w();
        }
      });
      resolve({
        events,
        status: res.statusCode ?? 0,
        headers: res.headers,
        waitFor(match, ms = scaled(3000), from = 0) {
          return new Promise((ok, fail) => {
            const check = (): boolean => {
              const hit = events.slice(from).find(match);
              if (hit) { waiters.delete(check); clearTimeout(timer); ok(hit); return true; }
              return false;
            };
            const timer = setTimeout(() => { waiters.delete(check); fail(new Error(`no matching event in ${ms} ms: ${JSON.stringify(events)}`)); }, ms);
            if (!check()) waiters.add(check);
          });
        },
        get ended() { return ended; },
        waitForEnd(ms = scaled(3000)) {
          return new Promise<void>((ok, fail) => {
            if (ended) { ok(); return; }
            const done = (): void => { clearTimeout(timer); onEnd.delete(done); ok(); };
            const timer = setTimeout(() => { onEnd.delete(done); fail(new Error(`the stream was still open after ${ms} ms: ${JSON.stringify(events)}`)); }, ms);
            onEnd.add(done);
          });
        },
        close() { req?.destroy(); },
      });
    });
    req.on('error', reject);
    req.end();
  });
}
