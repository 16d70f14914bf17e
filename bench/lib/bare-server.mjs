// Reference point for the serve budget, not a budget of its own: the least work node:http can do to
// answer with the same bytes and the same headers as Atrium's page cache. The gap between this and
// nginx is Node's; the gap between this and Atrium is Atrium's own request handling.
// Usage: node bare-server.mjs <file> <port>   (prints "listening" once bound; exits on SIGTERM)
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const [file, port] = process.argv.slice(2);
const body = readFileSync(file);
const headers = {
  'content-type': 'text/html',
  'cache-control': 'no-cache',
  vary: 'Cookie, Accept-Language, Accept-Encoding',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'SAMEORIGIN',
  'x-atrium-cache': 'hit',
  etag: '"bare-reference-0000000000"',
  'content-length': body.length,
};
const server = createServer((req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 65_000; // as Atrium
server.listen(Number(port), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections(); // wrk's keep-alive connections would otherwise hold close() open
});
