// The running server's side of the CLI with PGlite: a Unix socket in DATA_DIR (owner-only, nothing
// on the network). A CLI process sends one JSON line {args, cwd}; the command runs here on the
// server's runtime and its output streams back as JSON lines {o}/{e}, then {exit}.
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { Runtime } from '../lib/server/runtime';
import { runCommand } from './cli';

export const SOCKET_NAME = 'atrium.sock';

export function socketPath(dataDir: string): string {
  return join(dataDir, SOCKET_NAME);
}

/** Listens on DATA_DIR/atrium.sock; returns the close function (null when the path is unusable). */
export async function listenCliSocket(runtime: Runtime): Promise<(() => Promise<void>) | null> {
  const path = socketPath(runtime.config.dataDir);
  if (Buffer.byteLength(path) > 100) {
    runtime.log.warn(`CLI socket not opened: ${path} is too long for a Unix socket; stop the site to run commands`);
    return null;
  }
  // Our own pid holds the database lock, so a socket file here is a dead server's.
  if (existsSync(path)) rmSync(path, { force: true });
  const server: Server = createServer((socket) => {
    let buffer = '';
    let started = false;
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (started || nl < 0) {
        if (buffer.length > 1_000_000) socket.destroy();
        return;
      }
      started = true;
      let request: { args?: unknown; cwd?: unknown };
      try {
        request = JSON.parse(buffer.slice(0, nl)) as typeof request;
      } catch {
        socket.end(`${JSON.stringify({ e: 'Bad request\n' })}\n${JSON.stringify({ exit: 2 })}\n`);
        return;
      }
      const args = Array.isArray(request.args) ? request.args.map(String) : [];
      const send = (frame: object): void => { if (!socket.destroyed) socket.write(`${JSON.stringify(frame)}\n`); };
      const io = { out: (o: string) => send({ o }), err: (e: string) => send({ e }), cwd: typeof request.cwd === 'string' ? request.cwd : runtime.config.root };
      runtime.log.info(`cli: ${args[0] ?? 'help'}`);
      runCommand(args, runtime, io)
        .then((exit) => socket.end(`${JSON.stringify({ exit })}\n`))
        .catch((err: unknown) => {
          runtime.log.error('cli command failed', { err: err instanceof Error ? err.stack ?? err.message : String(err) });
          send({ e: `${err instanceof Error ? err.message : String(err)}\n` });
          socket.end(`${JSON.stringify({ exit: 1 })}\n`);
        });
    });
  });
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, resolve);
    });
  } finally {
    process.umask(previous);
  }
  chmodSync(path, 0o600);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(path, { force: true });
  };
}
