import { fork, type ChildProcess, type Serializable } from 'node:child_process';
import { join } from 'node:path';
import { KvError } from './kv';
import { ModuleCallError, type CallEnv, type HostedModule, type KvRequest } from './types';

export interface ModuleProcessOptions {
  module: HostedModule;
  bootstrapFile: string;
  execPath: string;
  maxOldSpaceMb: number;
  startTimeoutMs: number;
  handleKv(req: KvRequest): Promise<unknown>;
  onOutput(stream: 'stdout' | 'stderr', line: string): void;
  /** Once, when the process is gone; `expected` is false for a crash, a failed start or a timeout. */
  onExit(expected: boolean, reason: string): void;
}

const MAX_KV_IN_FLIGHT = 64;

interface Pending {
  resolve(value: unknown): void;
  reject(err: ModuleCallError): void;
  timer: NodeJS.Timeout;
}

/** The Node flags of a module host: read its package and data folders, write its data folder, nothing else. */
export function hostExecArgv(module: HostedModule, maxOldSpaceMb: number): string[] {
  return [
    '--permission',
    `--allow-fs-read=${module.packageDir}`,
    `--allow-fs-read=${module.dataDir}`,
    `--allow-fs-write=${module.dataDir}`,
    `--max-old-space-size=${maxOldSpaceMb}`,
    // A host's resident memory is mostly not its JS heap: V8's optimising compiler, its helper
    // threads and the young generation's room grew a math host from 54 to ~78 MB over a thousand
    // calls. Without them it stays at ~56 MB (budget 60) at the same speed for render-sized work.
    '--max-semi-space-size=1',
    '--no-opt',
    '--single-threaded',
  ];
}

/** One running module host process and the calls in flight to it. */
export class ModuleProcess {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private kvInFlight = 0;
  private expectedExit = false;
  private failReason: string | null = null;
  private loadError: string | null = null;
  private exited = false;
  private readonly stderrTail: string[] = [];
  private lastErrorLine: string | null = null;
  private startTimer: NodeJS.Timeout | null;

  constructor(private readonly opts: ModuleProcessOptions) {
    const m = opts.module;
    // A clean environment: the site's secrets (DATABASE_URL, keys) live in its env, and the
    // permission model does not hide process.env. The parent's execArgv is not inherited either.
    this.child = fork(opts.bootstrapFile, [join(m.packageDir, m.serverEntry), m.uid, m.version, join(m.packageDir, 'atrium.json')], {
      execPath: opts.execPath,
      execArgv: hostExecArgv(m, opts.maxOldSpaceMb),
      cwd: m.dataDir,
      // One malloc arena: a host is single-threaded, and each extra arena keeps freed memory resident.
      env: { NODE_ENV: process.env.NODE_ENV ?? 'production', MALLOC_ARENA_MAX: '1', ...(process.env.TZ ? { TZ: process.env.TZ } : {}) },
      serialization: 'advanced',
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.pipeLines('stdout');
    this.pipeLines('stderr');
    let readyResolve!: () => void;
    let readyReject!: (e: ModuleCallError) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      readyResolve = resolve;
      readyReject = reject;
    });
    // Nobody may be waiting yet when a start fails: the rejection is observed through call().
    this.ready.catch(() => undefined);
    this.startTimer = setTimeout(() => this.kill(`did not start within ${opts.startTimeoutMs} ms`), opts.startTimeoutMs);
    this.child.on('message', (msg: unknown) => this.onMessage(msg, readyResolve));
    this.child.on('error', (err) => {
      // Spawn failures and IPC errors: the process cannot serve; make sure it is gone.
      this.failReason ??= `host process error: ${err.message}`;
      this.child.kill('SIGKILL');
      if (this.child.exitCode !== null || this.child.pid === undefined) this.finish(null, null, readyReject);
    });
    // 'close', not 'exit': stderr is drained by then, so a crash's last words are in the reason.
    this.child.on('close', (code, signal) => this.finish(code, signal, readyReject));
  }

  get pid(): number | null {
    return this.exited ? null : (this.child.pid ?? null);
  }

  get inFlight(): number {
    return this.pending.size;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Sends one call; rejects with a ModuleCallError. A timeout kills the process (a loop blocks it). */
  call(method: string, args: unknown[], timeoutMs: number, env: CallEnv = { settings: {}, locale: 'zh-cn' }): Promise<unknown> {
    const uid = this.opts.module.uid;
    if (this.exited) return Promise.reject(new ModuleCallError('crashed', uid, this.exitReason()));
    const id = ++this.seq;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ModuleCallError('timeout', uid, `${method} did not answer within ${timeoutMs} ms`));
        this.kill(`${method} did not answer within ${timeoutMs} ms`);
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      try {
        this.child.send({ t: 'call', id, method, args, env });
      } catch (e) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new ModuleCallError('threw', uid, `the arguments cannot be sent: ${(e as Error).message}`));
      }
    });
  }

  /** Stops the process on purpose (idle, unregister, shutdown): not counted as a crash. */
  stop(): void {
    if (this.exited) return;
    this.expectedExit = true;
    this.child.kill('SIGTERM');
    // A process stuck in a loop does not run its SIGTERM default quickly enough to rely on.
    setTimeout(() => { if (!this.exited) this.child.kill('SIGKILL'); }, 1000).unref();
  }

  /** Kills the process as a failure with `reason` (timeout, start timeout). */
  kill(reason: string): void {
    if (this.exited) return;
    this.failReason ??= reason;
    this.child.kill('SIGKILL');
  }

  private onMessage(msg: unknown, readyResolve: () => void): void {
    if (!msg || typeof msg !== 'object') return;
    const m = msg as Record<string, unknown>;
    if (m.t === 'ready') {
      if (this.startTimer) clearTimeout(this.startTimer);
      this.startTimer = null;
      readyResolve();
    } else if (m.t === 'load-error') {
      this.loadError = typeof m.message === 'string' ? m.message.slice(0, 2000) : 'unknown error';
    } else if (m.t === 'result' && typeof m.id === 'number') {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.ok === true) p.resolve(m.value);
      else p.reject(new ModuleCallError('threw', this.opts.module.uid, typeof m.error === 'string' ? m.error : 'the module failed'));
    } else if (m.t === 'kv' && typeof m.id === 'number') {
      const id = m.id;
      // A module firing store operations without awaiting them must not queue unbounded work here.
      if (this.kvInFlight >= MAX_KV_IN_FLIGHT) {
        this.reply({ t: 'kv-reply', id, ok: false, error: `more than ${MAX_KV_IN_FLIGHT} store operations at once` });
        return;
      }
      this.kvInFlight++;
      this.opts
        .handleKv({ op: m.op, key: m.key, value: m.value, prefix: m.prefix })
        .then(
          (value) => this.reply({ t: 'kv-reply', id, ok: true, value }),
          (e: unknown) => this.reply({ t: 'kv-reply', id, ok: false, error: e instanceof KvError ? e.message : 'the store failed' }),
        )
        .finally(() => this.kvInFlight--);
    }
  }

  private reply(msg: Serializable): void {
    if (this.exited || !this.child.connected) return;
    try {
      this.child.send(msg);
    } catch {
      // The process went away between the check and the send: its exit handler settles everything.
    }
  }

  private pipeLines(stream: 'stdout' | 'stderr'): void {
    let buf = '';
    const s = this.child[stream];
    if (!s) return;
    s.setEncoding('utf8');
    s.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        this.line(stream, buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
      // A module printing one endless line must not grow the site's memory.
      if (buf.length > 8192) {
        this.line(stream, buf);
        buf = '';
      }
    });
    s.on('end', () => { if (buf) this.line(stream, buf); });
  }

  private line(stream: 'stdout' | 'stderr', line: string): void {
    const text = line.slice(0, 2000);
    if (stream === 'stderr' && text.trim()) {
      this.stderrTail.push(text);
      if (this.stderrTail.length > 5) this.stderrTail.shift();
      // What Node prints when a process dies: "Error: …" of an uncaught exception, V8's "FATAL ERROR: …"
      // (out of memory); a stack trace follows, so the tail alone would miss it.
      if (/^\s*(FATAL ERROR|[\w.]*Error\b)/.test(text)) this.lastErrorLine = text.trim();
    }
    this.opts.onOutput(stream, text);
  }

  private exitReason(code?: number | null, signal?: NodeJS.Signals | null): string {
    if (this.failReason) return this.failReason;
    if (this.loadError) return `failed to load: ${this.loadError}`;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code ?? '?'}`;
    const tail = this.lastErrorLine ?? this.stderrTail.at(-1);
    return tail ? `the host process ${how}: ${tail.trim().slice(0, 300)}` : `the host process ${how}`;
  }

  private finish(code: number | null, signal: NodeJS.Signals | null, readyReject: (e: ModuleCallError) => void): void {
    if (this.exited) return;
    this.exited = true;
    if (this.startTimer) clearTimeout(this.startTimer);
    const reason = this.exitReason(code, signal);
    const uid = this.opts.module.uid;
    readyReject(new ModuleCallError('crashed', uid, reason));
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new ModuleCallError('crashed', uid, reason));
    }
    this.pending.clear();
    this.opts.onExit(this.expectedExit && !this.failReason, reason);
  }
}
