// `npm start` stops when told to: a SIGTERM or SIGINT to the process npm runs as (what a process
// manager, `kill <pid>` or a terminal's Ctrl+C sends) reaches the server, which finishes, closes the
// database and exits, and no process of the chain is left behind holding DATA_DIR. Runs the real
// chain: npm → its script shell → scripts/node.mjs → the server.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { freePort } from '../helpers/ports';
import { scaled } from '../helpers/time-scale.mjs';

/** pid → parent pid of every process, from /proc. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command may hold spaces and parentheses: the fields after the last ')' are fixed.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      map.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone meanwhile */ }
  }
  return map;
}

/** The process and all its descendants. */
function tree(root: number): number[] {
  const all = parents();
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, ppid] of all) if (ppid === found[i]) found.push(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A child of ours that exited stays a zombie until reaped: that is not running.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

const portOpen = (port: number): Promise<boolean> => new Promise((resolve) => {
  const socket = connect(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve(true); });
  socket.once('error', () => resolve(false));
});

async function until(what: string, check: () => boolean | Promise<boolean>, ms: number, logs: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} within ${ms} ms. Output:\n${logs()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Major.minor of the Node a PATH entry holds, or null. */
function nodeVersion(dir: string): [number, number] | null {
  const r = spawnSync(join(dir, 'node'), ['--version'], { encoding: 'utf8' });
  const m = /^v(\d+)\.(\d+)/.exec(r.stdout ?? '');
  return m ? [Number(m[1]), Number(m[2])] : null;
}

// The machine's own Node, when it is too old to replace a process (process.execve, 22.15+): npm then
// runs under it and scripts/node.mjs stays resident between npm and the server, forwarding signals.
const oldNode = ['/usr/bin', '/usr/local/bin'].find((dir) => {
  const v = nodeVersion(dir);
  return v !== null && (v[0] < 22 || (v[0] === 22 && v[1] < 15));
});

let npm: ChildProcess | null = null;
const leftovers: number[] = [];
const dirs: string[] = [];

afterEach(() => {
  // Whatever a failing run left: the whole process group npm started, and any stray pid seen.
  if (npm?.pid) try { process.kill(-npm.pid, 'SIGKILL'); } catch { /* gone */ }
  for (const pid of leftovers.splice(0)) if (alive(pid)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  npm = null;
});

/** The log lines README's first-start section quotes. */
function quotedStartLines(): string[] {
  const block = /## First start[\s\S]*?```text\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'))?.[1] ?? '';
  const lines = block.split('\n').filter(Boolean);
  expect(lines.length).toBeGreaterThanOrEqual(2);
  return lines;
}

/** Starts `npm start` with `path` as PATH, signals npm, and checks that everything stopped cleanly. */
async function startAndStop(path: string, signal: 'SIGTERM' | 'SIGINT'): Promise<void> {
  const dataDir = mkdtempSync(join(TMP, 'npm-start-'));
  dirs.push(dataDir);
  cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
  const port = await freePort();
  let logs = '';
  const env: Record<string, string | undefined> = { ...process.env, PATH: path, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', DEPLOY_POLL_SECONDS: '0', ATRIUM_ROOT: ROOT };
  delete env.DATABASE_URL;
  npm = spawn('npm', ['start'], {
    cwd: ROOT,
    // Its own process group, so a failing run can be cleaned up as a whole.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  npm.stdout!.on('data', (d: Buffer) => { logs += d.toString(); });
  npm.stderr!.on('data', (d: Buffer) => { logs += d.toString(); });
  const exited = new Promise<number | null>((resolve) => npm!.once('exit', (code) => resolve(code)));

  // "listening" comes last, after the setup link (the port already answers a moment before it).
  await until('the server logs "listening"', () => /\binfo listening on /.test(logs), 90_000, () => logs);
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  // The first-start lines README quotes are the lines a new site really prints (its port, a token, a time).
  for (const line of quotedStartLines()) {
    const pattern = line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('http://localhost:4321', `http://127.0.0.1:${port}`).replace('token=…', 'token=[\\w-]+').replace('in … ms', 'in \\d+ ms');
    expect(logs, line).toMatch(new RegExp(`^${pattern}$`, 'm'));
  }
  const pids = tree(npm.pid!);
  leftovers.push(...pids);
  // npm, the script's process(es) and the server: the chain is what the signal must cross.
  expect(pids.length, logs).toBeGreaterThanOrEqual(2);
  expect(existsSync(join(dataDir, 'atrium.lock'))).toBe(true);

  process.kill(npm.pid!, signal);

  await until('the port closes', async () => !(await portOpen(port)), 30_000, () => logs);
  await until('every process of the chain exits', () => pids.every((pid) => !alive(pid)), 30_000, () => `${logs}\nstill running: ${pids.filter(alive).join(', ')}`);
  expect(await exited, logs).toBe(0);
  // A clean shutdown: requests finished, the database closed and its lock released.
  expect(logs).toContain(`${signal}: finishing`);
  expect(logs).toMatch(/\bstopped\b/);
  expect(existsSync(join(dataDir, 'atrium.lock'))).toBe(false);
}

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops on %s to npm: the port, the processes and the database are released', async (signal) => {
    await startAndStop(process.env.PATH ?? '', signal);
  }, scaled(180_000));

  it.skipIf(!oldNode)(`does the same on ${oldNode ?? 'an old'} Node, with scripts/node.mjs resident between npm and the server`, async () => {
    await startAndStop(`${oldNode}${delimiter}${process.env.PATH ?? ''}`, 'SIGTERM');
  }, scaled(180_000));
});
