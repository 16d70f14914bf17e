import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { writeBootstrap } from './bootstrap';
import { runKv } from './kv';
import { ModuleProcess } from './module-process';
import {
  ModuleCallError,
  type HostedModule,
  type HostMethod,
  type HostMethods,
  type JsonValue,
  type KvBackend,
  type ModuleStatus,
} from './types';

// The module host: one Node process per module, started by the first call, stopped when idle,
// killed when a call outlives its budget, restarted by the next call after a crash and disabled
// after too many crashes. The site's process never waits on a module synchronously: every call is
// a message and a timer. docs/modules/host.md describes the design.

export interface ModuleHostOptions {
  kv: KvBackend;
  /** Where the bootstrap file is written; a fresh private folder under the OS temp dir by default. */
  runtimeDir?: string;
  /** The Node binary; the running one by default. */
  execPath?: string;
  /** V8 old-space cap of each host, in MB (default 64). */
  maxOldSpaceMb?: number;
  /** Default budget of a call once the host is ready (default 2000 ms). */
  callTimeoutMs?: number;
  /** Budget for a host to load its module (default 10000 ms). */
  startTimeoutMs?: number;
  /** A host with no call for this long is stopped (default 5 minutes). */
  idleMs?: number;
  /** Crashes (timeouts included) within `crashWindowMs` that disable a module (default 3 in 10 minutes). */
  maxCrashes?: number;
  crashWindowMs?: number;
  /** Told once when a module is disabled by crashes, so the caller can record the reason. */
  onDisabled?(uid: string, reason: string): void;
  /** A line the module printed; written to stderr with the uid by default. */
  onOutput?(uid: string, stream: 'stdout' | 'stderr', line: string): void;
  now?(): number;
}

interface Entry {
  module: HostedModule;
  proc: ModuleProcess | null;
  failures: { at: number; reason: string }[];
  disabledReason: string | null;
  starts: number;
  idleTimer: NodeJS.Timeout | null;
}

const UID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** The site's default language (i18n/types.ts), for calls no request made (events, jobs). */
const DEFAULT_CALL_LOCALE = 'zh-cn';

const RESULT_OK: { [M in HostMethod]: (v: unknown) => boolean } = {
  render: (v) => typeof v === 'string',
  markdown: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
  onEvent: (v) => v === null,
  route: (v) => typeof v === 'object' && v !== null && Number.isInteger((v as { status?: unknown }).status) && 'body' in v,
  onJob: (v) => v === null,
};

export class ModuleHost {
  private readonly entries = new Map<string, Entry>();
  /** Each module's settings (defaults filled in), sent with every call; kept across re-registration. */
  private readonly settings = new Map<string, Record<string, JsonValue>>();
  private readonly readyProcs = new WeakSet<ModuleProcess>();
  private readonly o: Required<Omit<ModuleHostOptions, 'runtimeDir' | 'onDisabled'>> & Pick<ModuleHostOptions, 'onDisabled'>;
  private readonly runtimeDir: string | undefined;
  private bootstrapFile: string | null = null;
  private closed = false;
  private readonly killAllOnExit = (): void => {
    for (const e of this.entries.values()) if (e.proc?.pid) e.proc.child.kill('SIGKILL');
  };

  constructor(opts: ModuleHostOptions) {
    this.runtimeDir = opts.runtimeDir;
    this.o = {
      kv: opts.kv,
      execPath: opts.execPath ?? process.execPath,
      maxOldSpaceMb: opts.maxOldSpaceMb ?? 64,
      callTimeoutMs: opts.callTimeoutMs ?? 2000,
      startTimeoutMs: opts.startTimeoutMs ?? 10_000,
      idleMs: opts.idleMs ?? 5 * 60_000,
      maxCrashes: opts.maxCrashes ?? 3,
      crashWindowMs: opts.crashWindowMs ?? 10 * 60_000,
      onDisabled: opts.onDisabled,
      onOutput: opts.onOutput ?? ((uid, stream, line) => process.stderr.write(`[module ${uid} ${stream}] ${line}\n`)),
      now: opts.now ?? Date.now,
    };
    // A host stuck in a loop does not notice its parent is gone: take the children down with us.
    process.on('exit', this.killAllOnExit);
  }

  /** Makes a module callable (or replaces its definition, stopping a running host of the old one). */
  register(module: HostedModule): void {
    if (this.closed) throw new Error('the module host is closed');
    if (!UID.test(module.uid)) throw new Error(`invalid module uid: ${module.uid}`);
    for (const dir of [module.packageDir, module.dataDir]) {
      // Node splits nothing in these flags, but a relative path would be resolved against the cwd.
      if (!isAbsolute(dir)) throw new Error(`module folders must be absolute paths: ${dir}`);
    }
    if (isAbsolute(module.serverEntry) || module.serverEntry.split(/[\\/]/).includes('..')) {
      throw new Error(`the server entry must be inside the package: ${module.serverEntry}`);
    }
    const old = this.entries.get(module.uid);
    if (old) this.stopEntry(old);
    this.entries.set(module.uid, { module, proc: null, failures: [], disabledReason: null, starts: 0, idleTimer: null });
  }

  /** Stops a module's host and forgets it (uninstall, disable from the site). */
  unregister(uid: string): void {
    const e = this.entries.get(uid);
    if (!e) return;
    this.stopEntry(e);
    this.entries.delete(uid);
  }

  /** Sets the settings a module's calls carry from now on (`ctx.settings`); no process is started. */
  configure(uid: string, settings: Record<string, JsonValue>): void {
    this.settings.set(uid, settings);
  }

  /**
   * Calls `method` in the module's host, starting it if needed. Rejects with a ModuleCallError.
   * `locale` is the language of the request (`ctx.locale`, `ctx.t`), the site's default otherwise.
   */
  async call<M extends HostMethod>(
    uid: string,
    method: M,
    args: HostMethods[M]['args'],
    opts: { timeoutMs?: number; locale?: string } = {},
  ): Promise<HostMethods[M]['result']> {
    const e = this.entries.get(uid);
    if (!e) throw new ModuleCallError('unknown-module', uid, `no module ${uid} is registered`);
    if (e.disabledReason !== null) throw new ModuleCallError('disabled', uid, e.disabledReason);
    if (!e.module.hooks.includes(method)) throw new ModuleCallError('not-declared', uid, `${uid} does not declare the ${method} hook`);
    const proc = this.ensureProcess(e);
    if (e.idleTimer) clearTimeout(e.idleTimer);
    e.idleTimer = null;
    try {
      await proc.ready;
      const env = { settings: this.settings.get(uid) ?? {}, locale: opts.locale ?? DEFAULT_CALL_LOCALE };
      const value = await proc.call(method, args, opts.timeoutMs ?? this.o.callTimeoutMs, env);
      // The bootstrap checks these too, but module code can write to the IPC channel itself.
      if (!RESULT_OK[method](value)) throw new ModuleCallError('threw', uid, `${method} answered with a result of the wrong shape`);
      return value as HostMethods[M]['result'];
    } finally {
      this.armIdle(e, proc);
    }
  }

  /**
   * Starts a module's host now instead of at its first call (a markdown module that was just
   * activated is about to re-render content); it stops after the idle time like any other. A start
   * that fails is counted and reported as the first call's would be.
   */
  warm(uid: string): void {
    const e = this.entries.get(uid);
    if (!e || e.disabledReason !== null || this.closed) return;
    try {
      const proc = this.ensureProcess(e);
      proc.ready.then(() => this.armIdle(e, proc), () => undefined);
    } catch {
      // ensureProcess disabled the entry or could not prepare: the first call says why.
    }
  }

  status(uid: string): ModuleStatus | null {
    const e = this.entries.get(uid);
    if (!e) return null;
    this.pruneFailures(e);
    const proc = e.proc?.alive ? e.proc : null;
    return {
      uid,
      state: e.disabledReason !== null ? 'disabled' : !proc ? 'stopped' : this.readyProcs.has(proc) ? 'running' : 'starting',
      pid: proc?.pid ?? null,
      recentFailures: e.failures.map((f) => ({ ...f })),
      disabledReason: e.disabledReason,
      starts: e.starts,
    };
  }

  /** Process ids of the hosts alive now. */
  runningPids(): number[] {
    return [...this.entries.values()].flatMap((e) => (e.proc?.pid ? [e.proc.pid] : []));
  }

  /** Disables a module from the site (the reason is shown to administrators); stops its host. */
  disable(uid: string, reason: string): void {
    const e = this.entries.get(uid);
    if (!e) return;
    e.disabledReason = reason;
    this.stopEntry(e);
  }

  /** Re-enables a disabled module and forgets its crashes (the administrator's "enable"). */
  enable(uid: string): void {
    const e = this.entries.get(uid);
    if (!e) return;
    e.disabledReason = null;
    e.failures = [];
  }

  /** Stops every host (site shutdown); calls after this are refused. */
  close(): void {
    this.closed = true;
    for (const e of this.entries.values()) this.stopEntry(e);
    process.off('exit', this.killAllOnExit);
  }

  private ensureProcess(e: Entry): ModuleProcess {
    if (e.proc?.alive) return e.proc;
    if (this.closed) throw new ModuleCallError('disabled', e.module.uid, 'the module host is closed');
    const uid = e.module.uid;
    const link = findSymlink(e.module.packageDir);
    if (link) {
      this.disableEntry(e, `the package contains a symbolic link (${link}), which Node's permission model would follow out of the package`);
      throw new ModuleCallError('disabled', uid, e.disabledReason!);
    }
    let bootstrapFile: string;
    try {
      mkdirSync(e.module.dataDir, { recursive: true, mode: 0o700 });
      bootstrapFile = this.bootstrap();
    } catch (err) {
      // The site's own folders failing is not the module's fault: not counted as a crash.
      throw new ModuleCallError('crashed', uid, `cannot prepare the host: ${(err as Error).message}`);
    }
    const proc: ModuleProcess = new ModuleProcess({
      module: e.module,
      bootstrapFile,
      execPath: this.o.execPath,
      maxOldSpaceMb: this.o.maxOldSpaceMb,
      startTimeoutMs: this.o.startTimeoutMs,
      handleKv: (req) => runKv(this.o.kv, uid, req),
      onOutput: (stream, line) => this.o.onOutput(uid, stream, line),
      onExit: (expected, reason) => this.onExit(e, proc, expected, reason),
    });
    proc.ready.then(() => this.readyProcs.add(proc), () => undefined);
    e.proc = proc;
    e.starts++;
    return proc;
  }

  private onExit(e: Entry, proc: ModuleProcess, expected: boolean, reason: string): void {
    if (e.proc === proc) {
      e.proc = null;
      if (e.idleTimer) clearTimeout(e.idleTimer);
      e.idleTimer = null;
    }
    if (expected || e.disabledReason !== null || this.entries.get(e.module.uid) !== e) return;
    e.failures.push({ at: this.o.now(), reason });
    this.pruneFailures(e);
    if (e.failures.length >= this.o.maxCrashes) {
      this.disableEntry(e, `disabled after ${e.failures.length} crashes within ${Math.round(this.o.crashWindowMs / 1000)} s; last: ${reason}`);
    }
  }

  private disableEntry(e: Entry, reason: string): void {
    e.disabledReason = reason;
    try {
      this.o.onDisabled?.(e.module.uid, reason);
    } catch {
      // The caller's bookkeeping failing must not take the host down with it.
    }
  }

  private pruneFailures(e: Entry): void {
    const since = this.o.now() - this.o.crashWindowMs;
    e.failures = e.failures.filter((f) => f.at > since);
  }

  private armIdle(e: Entry, proc: ModuleProcess): void {
    if (e.proc !== proc || !proc.alive || proc.inFlight > 0) return;
    if (e.idleTimer) clearTimeout(e.idleTimer);
    e.idleTimer = setTimeout(() => {
      e.idleTimer = null;
      if (e.proc === proc && proc.inFlight === 0) this.stopEntry(e);
    }, this.o.idleMs);
    e.idleTimer.unref();
  }

  private stopEntry(e: Entry): void {
    if (e.idleTimer) clearTimeout(e.idleTimer);
    e.idleTimer = null;
    const proc = e.proc;
    e.proc = null;
    proc?.stop();
  }

  private bootstrap(): string {
    if (!this.bootstrapFile) {
      const dir = this.runtimeDir ?? mkdtempSync(join(tmpdir(), 'atrium-module-host-'));
      this.bootstrapFile = writeBootstrap(dir);
    }
    return this.bootstrapFile;
  }
}

/**
 * The first symbolic link inside `dir` (relative path), or null. Node's permission model follows
 * links, so one link in a package would open the folder it points to; packages have no reason to
 * carry any (the installer does not create them, and a module cannot: symlink needs full access).
 */
export function findSymlink(dir: string): string | null {
  for (const d of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (d.isSymbolicLink()) return relative(dir, join(d.parentPath, d.name));
  }
  return null;
}
