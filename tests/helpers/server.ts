// Starts the built server (dist/atrium.mjs) on a free port with a fresh database for one test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { PG_PREFIX, ROOT, TEMPLATE_DIR, TEMPLATE_PG, TMP } from './paths';
import { scaled } from './time-scale.mjs';

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  process: ChildProcess;
  /** Everything the server wrote to stderr so far. */
  logs(): string;
  stop(): Promise<number | null>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Use PostgreSQL (TEST_DATABASE_URL) instead of PGlite; a fresh database from the template. */
  postgres?: boolean;
  /** Reuse this data directory instead of a fresh copy. */
  dataDir?: string;
  /**
   * Milliseconds to wait for "listening" (a first start seeds the database); 120 s scaled to the machine
   * by default (tests/helpers/time-scale.mjs): it only catches a hung process, a server that exits
   * fails the start at once (a loaded 2-core host needed over 20 s).
   */
  startTimeout?: number;
  /** Start the server with this umask (octal, e.g. '022') instead of the test runner's. */
  umask?: string;
}

/** A new PostgreSQL database copied from the migrated template; its URL. */
export async function freshPostgres(): Promise<string> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const name = `${PG_PREFIX}_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name} template ${TEMPLATE_PG}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(TMP, 'srv-'));
  if (!opts.dataDir) cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info',
    DEPLOY_POLL_SECONDS: '0',
    ...opts.env,
  };
  delete env.DATABASE_URL;
  if (opts.postgres) env.DATABASE_URL = await freshPostgres();
  if (opts.env?.DATABASE_URL) env.DATABASE_URL = opts.env.DATABASE_URL;
  const entry = join(ROOT, 'dist/atrium.mjs');
  // With a umask, a shell sets it and then becomes the server (exec): the child is still the server.
  const child = opts.umask
    ? spawn('/bin/sh', ['-c', `umask ${opts.umask} && exec "$0" "$@"`, process.execPath, entry], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  child.stderr.on('data', (d: Buffer) => { logs += d.toString(); });
  child.stdout.on('data', (d: Buffer) => { logs += d.toString(); });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${logs}`)), opts.startTimeout ?? scaled(120_000));
    const onData = (): void => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(logs);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    child.stderr.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}:\n${logs}`)); });
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    process: child,
    logs: () => logs,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

export interface RawResponse {
  status: number;
  /** The status line's reason phrase ("Forbidden"). */
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json<T = { code: number; msg: string; data: unknown; time: number }>(): T;
}

/** Reads a whole response into a RawResponse. */
export function collectResponse(res: IncomingMessage, resolve: (r: RawResponse) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => {
    const body = Buffer.concat(chunks);
    const text = body.toString('utf8');
    resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body, text, json: () => JSON.parse(text) });
  });
}

/** A request with full control of headers (Host included), no decompression, no redirects followed. */
export function raw(base: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<RawResponse> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const headers = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] ??= String(Buffer.byteLength(init.body));
    const req = httpRequest(url, { method: init.method ?? 'GET', headers, agent: false }, (res) => collectResponse(res, resolve));
    req.on('error', reject);
    if (init.body) req.write(init.body);
    req.end();
  });
}

/** POSTs JSON the way the browser client does. */
export function postJson(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return raw(base, path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}
