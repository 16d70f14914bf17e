// A real object store for tests and benches: OpenStack Swift with its s3api middleware (Debian's
// python3-swift), one replica on 127.0.0.1 in a temporary folder, parts of 1 MiB allowed.
// Self-contained (node: imports and time-scale.mjs only) so that `node tests/helpers/swift.ts start|stop` runs it too.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';

export interface SwiftStore {
  /** `http://127.0.0.1:<port>`: the S3 endpoint (path-style). */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  dir: string;
  pids: number[];
  stop(): Promise<void>;
}

export interface SwiftOptions {
  /** Bucket created once the store answers. */
  bucket?: string;
  /** Origins allowed to call the store from a browser (CORS); `*` by default. */
  corsOrigins?: string[];
  /** Proxy port; a free one when absent. */
  port?: number;
  /** The s3api location (SigV4 scope region); `us-east-1` by default. */
  region?: string;
}

const ACCESS_KEY = 'test:tester';
const SECRET_KEY = 'testing';
const REGION = 'us-east-1';
/** Debian's interpreter: a pyenv or venv python3 earlier on PATH does not see python3-swift. */
const PYTHON = process.env.SWIFT_PYTHON || (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

/** True when Swift's Python package is installed. */
export function swiftInstalled(): boolean {
  return spawnSync(PYTHON, ['-c', 'import swift.common.middleware.s3api'], { stdio: 'ignore' }).status === 0;
}

/** Installs Debian's python3-swift when it is missing (needs root and apt). */
export function ensureSwiftInstalled(): void {
  if (swiftInstalled()) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'python3-swift'], { stdio: 'inherit', env }) : update;
  if (install.status !== 0 || !swiftInstalled()) throw new Error('Swift is not installed and `apt-get install python3-swift` failed (run it as root)');
}

function readFileSafe(path: string): string {
  try { return readFileSync(path, 'utf8'); } catch { return ''; }
}

function serverConf(dir: string, kind: 'object' | 'container' | 'account', port: number): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
devices = ${dir}/devices
mount_check = false
swift_dir = ${dir}
log_level = WARNING

[pipeline:main]
pipeline = ${kind}-server

[app:${kind}-server]
use = egg:swift#${kind}
${kind === 'object' ? '' : 'allow_versions = false\n'}`;
}

function proxyConf(dir: string, port: number, origins: string[], region: string): string {
  const allow = origins.join(',');
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
swift_dir = ${dir}
log_level = WARNING
cors_allow_origin = ${allow === '*' ? '' : allow}
cors_expose_headers = etag, content-length, x-amz-request-id
strict_cors_mode = ${allow === '*' ? 'false' : 'true'}

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = ${region}
dns_compliant_bucket_names = false
min_segment_size = 1048576
cors_preflight_allow_origin = ${allow}

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = ${SECRET_KEY} .admin

[filter:slo]
use = egg:swift#slo
min_segment_size = 1

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:cache]
use = egg:swift#memcache
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:copy]
use = egg:swift#copy
[filter:dlo]
use = egg:swift#dlo
`;
}

const RINGS = `
import sys
from swift.common.ring import RingBuilder
d = sys.argv[1]
for name, port in (('object', int(sys.argv[2])), ('container', int(sys.argv[3])), ('account', int(sys.argv[4]))):
    b = RingBuilder(8, 1, 1)
    b.add_dev({'id': 0, 'region': 1, 'zone': 1, 'ip': '127.0.0.1', 'port': port, 'device': 'd1', 'weight': 100})
    b.rebalance()
    b.get_ring().save('%s/%s.ring.gz' % (d, name))
`;

const RUN = `
import sys
from swift.common import utils
utils.set_swift_dir(sys.argv[1])
from swift.common.wsgi import run_wsgi
sys.exit(run_wsgi(sys.argv[2], sys.argv[3]))
`;
import { scaled } from './time-scale.mjs';

/** A SigV2-signed request as `test:tester` (enough to create a bucket; tests use the AWS SDK otherwise). */
async function s3v2(endpoint: string, method: string, path: string): Promise<Response> {
  const date = new Date().toUTCString();
  const signature = createHmac('sha1', SECRET_KEY).update(`${method}\n\n\n${date}\n${path}`).digest('base64');
  return fetch(endpoint + path, { method, headers: { date, authorization: `AWS ${ACCESS_KEY}:${signature}` } });
}

async function waitHealthy(url: string, children: ChildProcess[], timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const dead = children.find((c) => c.exitCode !== null);
    if (dead) throw new Error(`Swift: a server exited with code ${dead.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`Swift did not answer ${url} within ${timeoutMs} ms`);
}

/** Starts Swift (object, container, account and proxy servers) in a fresh temporary folder. */
export async function startSwift(options: SwiftOptions = {}): Promise<SwiftStore> {
  ensureSwiftInstalled();
  const dir = await mkdtemp(join(tmpdir(), 'atrium-swift-'));
  await mkdir(join(dir, 'devices', 'd1'), { recursive: true });
  const [objectPort, containerPort, accountPort, proxyPort] = [await freePort(), await freePort(), await freePort(), options.port ?? await freePort()];
  await writeFile(join(dir, 'swift.conf'), '[swift-hash]\nswift_hash_path_suffix = atrium\nswift_hash_path_prefix = tests\n\n[storage-policy:0]\nname = gold\ndefault = yes\n');
  await writeFile(join(dir, 'object-server.conf'), serverConf(dir, 'object', objectPort));
  await writeFile(join(dir, 'container-server.conf'), serverConf(dir, 'container', containerPort));
  await writeFile(join(dir, 'account-server.conf'), serverConf(dir, 'account', accountPort));
  await writeFile(join(dir, 'proxy-server.conf'), proxyConf(dir, proxyPort, options.corsOrigins?.length ? options.corsOrigins : ['*'], options.region ?? REGION));
  const rings = spawnSync(PYTHON, ['-c', RINGS, dir, String(objectPort), String(containerPort), String(accountPort)], { encoding: 'utf8' });
  if (rings.status !== 0) throw new Error(`Swift rings: ${rings.stderr}`);

  const children: ChildProcess[] = [];
  for (const [conf, section] of [['object-server.conf', 'object-server'], ['container-server.conf', 'container-server'], ['account-server.conf', 'account-server'], ['proxy-server.conf', 'proxy-server']] as const) {
    // Swift logs to syslog (absent here); what a crash prints goes to <dir>/<section>.log.
    const log = openSync(join(dir, `${section}.log`), 'a');
    const child = spawn(PYTHON, ['-c', RUN, dir, join(dir, conf), section], { stdio: ['ignore', log, log], detached: true });
    closeSync(log);
    child.once('exit', (code) => {
      if (code && !stopping) process.stderr.write(`[swift] ${section} exited ${code}: ${readFileSafe(join(dir, `${section}.log`)).slice(-2000)}\n`);
    });
    children.push(child);
  }
  let stopping = false;
  const endpoint = `http://127.0.0.1:${proxyPort}`;
  const stop = async (): Promise<void> => {
    stopping = true;
    await Promise.all(children.map((c) => new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      try { process.kill(-c.pid!, 'SIGTERM'); } catch { resolve(); }
      setTimeout(() => { try { process.kill(-c.pid!, 'SIGKILL'); } catch { /* gone */ } }, 3000).unref();
    })));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitHealthy(`${endpoint}/healthcheck`, children, scaled(30_000));
    const bucket = options.bucket ?? 'atrium';
    // The proxy answers its healthcheck before the account and container servers listen: 503 until
    // then, and a 500 ("Invalid path") while the account's database is still being created.
    let res = await s3v2(endpoint, 'PUT', `/${bucket}`);
    for (let i = 0; i < scaled(100) && res.status >= 500; i++) {
      await new Promise((r) => setTimeout(r, 200));
      res = await s3v2(endpoint, 'PUT', `/${bucket}`);
    }
    if (!res.ok && res.status !== 409) throw new Error(`Swift: creating bucket ${bucket} gave ${res.status} ${await res.text()}`);
    return { endpoint, region: options.region ?? REGION, accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY, bucket, dir, pids: children.map((c) => c.pid!), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

// `node tests/helpers/swift.ts start [bucket]` prints the store as JSON (pids in it) and leaves it
// running; `node tests/helpers/swift.ts stop <state.json>` ends those processes and removes the folder.
if (import.meta.url === `file://${process.argv[1]}`) {
  const [command, arg] = process.argv.slice(2);
  if (command === 'start') {
    const store = await startSwift({ bucket: arg || 'atrium', port: process.env.SWIFT_PORT ? Number(process.env.SWIFT_PORT) : undefined });
    const { stop: _stop, ...state } = store;
    process.stdout.write(JSON.stringify(state) + '\n');
    process.exit(0);
  } else if (command === 'stop' && arg) {
    const state = JSON.parse(await readFile(arg, 'utf8')) as { pids: number[]; dir: string };
    for (const pid of state.pids) { try { process.kill(-pid, 'SIGTERM'); } catch { /* gone */ } }
    await rm(state.dir, { recursive: true, force: true });
  } else {
    process.stderr.write('usage: node tests/helpers/swift.ts start [bucket] | stop <state.json>\n');
    process.exit(2);
  }
}
