// Runs Debian's nginx in front of a test server with the configuration docs/operators/nginx.md documents
// (deploy/nginx/atrium.conf): TLS with a throwaway self-signed certificate, every file nginx writes
// (pid, logs, temp bodies) inside a temp folder, stopped after the test.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { ROOT, TMP } from './paths';
import { collectResponse, type RawResponse } from './server';
import { freePort } from './ports';
import { scaled } from './time-scale.mjs';

export const NGINX = process.env.NGINX_PATH || '/usr/sbin/nginx';
export const NGINX_MISSING = existsSync(NGINX) ? null : `nginx not found at ${NGINX} (apt-get install nginx-light): proxy tests skipped`;
/** The file README and docs/operators/nginx.md point to. */
export const DEPLOY_CONF = join(ROOT, 'deploy/nginx/atrium.conf');

export interface Nginx {
  /** https://127.0.0.1:port: TLS as the visitor sees it. */
  httpsPort: number;
  httpPort: number;
  stop(): Promise<void>;
}

export interface ConfigPlaces {
  /** The instances of `upstream atrium`, in order. */
  upstreams: number[];
  httpsPort: number;
  httpPort: number;
  cert: string;
  key: string;
  /** The built client files (the `root` of /_astro/). */
  clientDir: string;
  /**
   * Test only: a request with `x-test-instance: <n>` (1-based) goes to that instance, through the
   * same locations (a `map` picks the upstream); without the header nginx balances as configured.
   */
  pin?: boolean;
}

/** The deploy configuration with its ports, upstreams, certificate and paths pointed at this test. */
export function deployConfig(p: ConfigPlaces): string {
  const conf = readFileSync(DEPLOY_CONF, 'utf8');
  const upstream = /upstream atrium \{\n((?:\s*server [^\n]+\n)+)(\s*keepalive \d+;\n)\}/;
  const m = upstream.exec(conf);
  if (!m) throw new Error('deploy/nginx/atrium.conf changed shape: no `upstream atrium { server …; keepalive N; }` block');
  const options = /server \S+( [^;\n]*)?;/.exec(m[1]!)?.[1] ?? '';
  const servers = (ports: number[]): string => ports.map((port) => `  server 127.0.0.1:${port}${options};\n`).join('');
  let out = conf.replace(upstream, `upstream atrium {\n${servers(p.upstreams)}${m[2]}}`);
  if (p.pin) {
    const each = p.upstreams.map((port, i) => `upstream atrium_${i + 1} {\n${servers([port])}${m[2]}}\n`).join('');
    const map = `map $http_x_test_instance $atrium_pick {\n  default atrium;\n${p.upstreams.map((_, i) => `  ${i + 1} atrium_${i + 1};\n`).join('')}}\n`;
    out = `${each}${map}${out.replaceAll('proxy_pass http://atrium;', 'proxy_pass http://$atrium_pick;')}`;
  }
  out = out
    .replace('listen 443 ssl;', `listen 127.0.0.1:${p.httpsPort} ssl;`)
    .replace('listen 80;', `listen 127.0.0.1:${p.httpPort};`)
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${p.cert};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${p.key};`)
    .replace('root /srv/atrium/dist/client;', `root ${p.clientDir};`);
  for (const needle of [`${p.httpsPort} ssl`, `:${p.httpPort};`, p.cert, p.key, `root ${p.clientDir};`, ...p.upstreams.map((port) => `:${port}`)]) {
    if (!out.includes(needle)) throw new Error(`deploy/nginx/atrium.conf changed shape: could not place ${needle}`);
  }
  return out;
}

/** Starts nginx with deploy/nginx/atrium.conf in front of the given instance ports. */
export async function startNginx(upstreams: number | number[], opts: { pin?: boolean } = {}): Promise<Nginx> {
  mkdirSync(TMP, { recursive: true });
  const dir = mkdtempSync(join(TMP, 'nginx-'));
  // When tests run as root nginx's workers become `nobody`: they must be able to write temp bodies.
  chmodSync(dir, 0o755);
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const ssl = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=example.com', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (ssl.status !== 0) throw new Error(`openssl failed: ${ssl.stderr}`);
  const [httpsPort, httpPort] = [await freePort(), await freePort()];
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => {
    const p = join(dir, `${k}_temp`);
    mkdirSync(p);
    chmodSync(p, 0o777);
    return `  ${k}_temp_path ${p};`;
  });
  const conf = join(dir, 'nginx.conf');
  const site = deployConfig({ upstreams: ([] as number[]).concat(upstreams), httpsPort, httpPort, cert, key, clientDir: join(ROOT, 'dist/client'), pin: opts.pin });
  // The http block of Debian's /etc/nginx/nginx.conf, which includes conf.d/ (mime types, sendfile).
  writeFileSync(conf, `daemon off;
master_process on;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  ${existsSync('/etc/nginx/mime.types') ? 'include /etc/nginx/mime.types;' : ''}
  default_type application/octet-stream;
  sendfile on;
  access_log off;
${temps.join('\n')}
${site}
}
`);
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  // Waits on nginx answering; the deadline only catches a hang (scaled to the machine).
  const until = Date.now() + scaled(5000);
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`nginx exited at start: ${stderr}${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`);
    try {
      await viaTls(httpsPort, '/healthz');
      return { httpsPort, httpPort, stop };
    } catch { await new Promise((r) => setTimeout(r, 20)); }
  }
  await stop();
  throw new Error(`nginx did not answer within ${scaled(5000)} ms: ${stderr}`);
}

/** A request to nginx over TLS as `example.com` (the certificate is self-signed). */
export function viaTls(port: number, path: string, init: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: 'example.com', ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const req = httpsRequest({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers, servername: 'example.com', rejectUnauthorized: false, agent: false, ...(init.localAddress ? { localAddress: init.localAddress } : {}) }, (res) => collectResponse(res, resolve));
    req.on('error', reject);
    if (init.body) req.write(init.body);
    req.end();
  });
}
