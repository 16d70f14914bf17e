// `npm run atrium -- <command>`. With PGlite and the site running, the command is sent to the
// server through DATA_DIR/atrium.sock and runs there; otherwise this process opens the database
// (PGlite stopped, or PostgreSQL: running instances pick changes up through Redis).
// A long output on a terminal goes through the pager ($PAGER, else `less -FRX`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve as resolvePath } from 'node:path';
import { readConfig } from '../lib/server/env';
import { createRuntime } from '../lib/server/boot/runtime';
import { DatabaseLockedError, openDatabase } from '../lib/server/db/client';
import { answerWithoutRuntime, runCommand, type CliIo } from './cli';
import { findCommand, parseCommand } from '../lib/server/commands';
import { socketPath } from './cli-socket';
import { RestoreRefused, isEmptySite, restoreBackup } from '../lib/server/admin/backup';
import { CLI_ACTOR, recordAction } from '../lib/server/admin/audit';

/** Collects stdout on a terminal so a long listing can be paged; passes through otherwise. */
function terminalIo(): CliIo & { flush(): void } {
  const page = Boolean(process.stdout.isTTY);
  let held = '';
  return {
    out: (text) => { if (page) held += text; else process.stdout.write(text); },
    err: (text) => void process.stderr.write(text),
    cwd: process.cwd(),
    flush() {
      if (!held) return;
      const rows = process.stdout.rows || 24;
      if (held.split('\n').length <= rows - 1) { process.stdout.write(held); return; }
      const [cmd, ...args] = (process.env.PAGER || 'less -FRX').split(/\s+/);
      const r = spawnSync(cmd!, args, { input: held, stdio: ['pipe', 'inherit', 'inherit'] });
      if (r.error) process.stdout.write(held);
    },
  };
}

/** Sends the command to the running server; null when no server listens (then run it here). */
function viaSocket(path: string, args: string[], io: CliIo): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let buffer = '';
    let answered = false;
    let exit: number | null = null;
    socket.setEncoding('utf8');
    socket.on('connect', () => { socket.write(`${JSON.stringify({ args, cwd: process.cwd() })}\n`); });
    socket.on('data', (chunk: string) => {
      answered = true;
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const frame = JSON.parse(buffer.slice(0, nl)) as { o?: string; e?: string; exit?: number };
        buffer = buffer.slice(nl + 1);
        if (frame.o !== undefined) io.out(frame.o);
        if (frame.e !== undefined) io.err(frame.e);
        if (frame.exit !== undefined) exit = frame.exit;
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!answered && (err.code === 'ECONNREFUSED' || err.code === 'ENOENT')) resolve(null);
      else { io.err(`Lost the connection to the running server: ${err.message}\n`); resolve(1); }
    });
    socket.on('close', () => resolve(exit ?? (answered ? 1 : null)));
  });
}

async function restore(args: string[]): Promise<number> {
  const config = { ...readConfig(), logLevel: 'warn' as const };
  const parsed = parseCommand(findCommand('restore')!, args);
  if (!parsed.ok) { process.stderr.write(parsed.error); return 2; }
  const [file] = parsed.args;
  if (!file || !existsSync(resolvePath(file))) {
    process.stderr.write(`Usage: restore <file> [--replace]${file ? ` (no file ${file})` : ''}\n`);
    return 2;
  }
  if (!config.databaseUrl) {
    const dir = join(config.dataDir, 'db');
    const used = existsSync(dir) && readdirSync(dir).length > 0;
    if (used && existsSync(socketPath(config.dataDir))) {
      // A live server answers on the socket; a stale socket file is ignored.
      const alive = await viaSocket(socketPath(config.dataDir), ['help'], { out: () => undefined, err: () => undefined, cwd: process.cwd() });
      if (alive !== null) { process.stderr.write('The site is running: stop it before restoring.\n'); return 1; }
    }
    if (used) {
      if (!parsed.options.replace) {
        process.stderr.write(`${dir} already holds a database. Restore into an empty DATA_DIR, or add --replace (the old data is kept beside it).\n`);
        return 1;
      }
      const aside = `${dir}.before-restore-${Date.now()}`;
      renameSync(dir, aside);
      process.stdout.write(`Moved the old database to ${aside}.\n`);
    }
    mkdirSync(config.dataDir, { recursive: true });
  }
  const database = await openDatabase(config);
  try {
    if (!(await isEmptySite(database.db))) {
      process.stderr.write('The database already has members: restore only into an empty database.\n');
      return 1;
    }
    await database.migrate(config.root);
    const done = await restoreBackup(database.db, config.root, config.dataDir, resolvePath(file));
    await recordAction(database.db, CLI_ACTOR, 'restore', resolvePath(file), '', { rows: done.rows, files: done.files, created: done.header.created, source: done.header.source });
    process.stdout.write(`Restored ${done.rows} rows and ${done.files} files from a ${done.header.source} backup of ${done.header.created}.\n`);
    return 0;
  } catch (err) {
    if (err instanceof RestoreRefused) { process.stderr.write(`${err.message}\n`); return 1; }
    throw err;
  } finally {
    await database.close();
  }
}

async function main(args: string[]): Promise<number> {
  const [command] = args;
  // The help and usage errors need no database.
  const answered = answerWithoutRuntime(args, { out: (t) => void process.stdout.write(t), err: (t) => void process.stderr.write(t), cwd: process.cwd() });
  if (answered !== null) return answered;
  if (command === 'restore') return restore(args.slice(1));
  const config = readConfig();
  const io = terminalIo();
  try {
    // A running server answers on its socket (see operator.ts): it then drops its own caches.
    if ((!config.databaseUrl || !config.redisUrl) && existsSync(socketPath(config.dataDir))) {
      const code = await viaSocket(socketPath(config.dataDir), args, io);
      if (code !== null) return code;
    }
    const runtime = await createRuntime({ ...config, logLevel: 'warn' }, { background: false });
    try {
      return await runCommand(args, runtime, io);
    } finally {
      await runtime.close();
    }
  } finally {
    io.flush();
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`${err instanceof DatabaseLockedError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
