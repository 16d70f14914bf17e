// A forward proxy for a test browser that sends its `https://<host>/` (port 443) to a local TLS port:
// the browser then speaks to nginx exactly as a visitor of the real site does (Origin and Host
// without a port), which Chromium's --host-resolver-rules cannot give (it maps names, not ports; on
// the test port nginx's `Host $host` drops the port the browser's Origin keeps, and every
// cookie-authenticated POST from the console is refused as cross-site). CONNECTs to anything else
// are refused: nothing leaves the machine.
import { createServer } from 'node:http';
import { connect } from 'node:net';

export interface HttpsTunnel {
  /** The proxy for `chromium.launch({ proxy: { server } })`. */
  server: string;
  close(): Promise<void>;
}

/** Tunnels every CONNECT to `host:443` to 127.0.0.1:`port`; anything else answers 403. */
export async function startHttpsTunnel(host: string, port: number): Promise<HttpsTunnel> {
  const proxy = createServer((_req, res) => { res.writeHead(403).end(); });
  // Tunnelled sockets leave the HTTP server's hands: kept here to be ended on close.
  const open = new Set<{ destroy(): void }>();
  proxy.on('connect', (req, socket, head) => {
    if (req.url !== `${host}:443`) {
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(port, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    for (const end of [socket, upstream]) {
      open.add(end);
      end.on('close', () => open.delete(end));
    }
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    server: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
    close: () => new Promise<void>((resolve) => {
      for (const end of open) end.destroy();
      proxy.closeAllConnections();
      proxy.close(() => resolve());
    }),
  };
}
