// Reference point for the message stream's memory budget: the least a node:http server can hold
// per idle server-sent-events connection (headers, one comment, a shared 15 s heartbeat).
// Usage: node bare-sse.mjs <port>   (prints "listening" once bound; exits on SIGTERM)
import { createServer } from 'node:http';

const open = new Set();
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
  res.write(': ok\n\n');
  open.add(res);
  res.once('close', () => open.delete(res));
});
setInterval(() => { for (const res of open) res.write(':\n\n'); }, 15_000).unref();
server.listen(Number(process.argv[2]), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => {
  for (const res of open) res.end();
  server.close(() => process.exit(0));
});
