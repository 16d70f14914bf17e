// One HTTP/1.1 request written byte for byte (any method, any target, a length announced and never
// sent), read to the end of the connection: what a client library would refuse to send.
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface RawReply { status: number; headers: string; body: string }

/** Over plain TCP, or over TLS (`tls`: the proxy tests' nginx, its certificate not checked). */
export function rawExchange(port: number, head: string, opts: { tls?: boolean } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const send = (): void => { socket.write(head); };
    const socket = opts.tls
      ? tlsConnect({ host: '127.0.0.1', port, servername: 'example.com', rejectUnauthorized: false }, send)
      : connect(port, '127.0.0.1', send);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headers = '', ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(headers)?.[1] ?? 0), headers, body: rest.join('\r\n\r\n') });
    });
    socket.on('error', reject);
    socket.setTimeout(10_000, () => { socket.destroy(); reject(new Error(`no answer to ${head.split('\r\n')[0]}`)); });
  });
}
