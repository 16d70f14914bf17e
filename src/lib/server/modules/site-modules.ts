// The modules this instance runs, kept equal to the wanted state in `module_install` (which module,
// which version and package hash, enabled or not). Every instance reconciles at start, on the
// bus's `modules` message (sent by every lifecycle change, lifecycle.ts) and after the bus
// reconnects, since the bus delivers at most once. A module with a package is unpacked from the
// shared package store (database paths or the object store, never one host's disk) into this
// instance's data folder after its bytes are checked against the pinned sha256; its server code
// is registered with the module host (one process per module, started on the first call), and its
// markdown syntax joins the set every render uses (markdown.ts). A new package is activated once
// every live instance has unpacked it (instances.ts); settings are handed to the host on every
// reconcile (a settings change is a bus message too); due jobs are run from here (jobs.ts).
import { and, eq, ne } from 'drizzle-orm';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MarkdownExtension } from '../../markdown/render';
import { module, moduleInstall, modulePackage, moduleVersion } from '../db/schema';
import { readPackage } from '../upload/drivers';
import type { Bus } from '../bus';
import type { Db } from '../db/client';
import type { ServerConfig } from '../env';
import type { Logger } from '../log';
import type { PageCache } from '../page-cache';
import type { ConfigStore } from '../site/config';
import type { ActiveModule, RunningModules } from './active';
import { ModuleHost } from './host/host';
import { DbKvBackend } from './host/kv-db';
import type { HookName, ModuleStatus } from './host/types';
import { sha256Of, unpackPackage } from './inspect';
import { MANIFEST_FILE, Manifest } from './manifest';
import { setMarkdownProvider, type MarkdownProvider } from './markdown';
import { deliverDue, setEventSubscribers, type SiteEvent } from './events';
import { ACTIVATION_WAIT_MS, InstancePresence } from './instances';
import { runDueJobs, syncJobs } from './jobs';
import type { ManifestJob } from './manifest';
import { effectiveSettings, storedSettings } from './settings-store';

/** How often due module events are looked for while a running module subscribes to some. */
const EVENT_POLL_MS = 500;
/** How often due module jobs are looked for while a running module declares some (jobs run at most once a minute). */
const JOB_POLL_MS = 5000;
const ACTIVATION_WAIT_S = ACTIVATION_WAIT_MS / 1000;

/** The bus channel of lifecycle changes: every instance reconciles when it hears one. */
export const MODULES_CHANNEL = 'modules';

interface Deps {
  db: Db;
  config: ServerConfig;
  site: ConfigStore;
  log: Logger;
  bus: Bus;
  pageCache: PageCache;
}

const now = (): number => Math.floor(Date.now() / 1000);

/** The hooks a manifest's contributions need in the host. */
function hooksOf(manifest: Manifest): HookName[] {
  const hooks: HookName[] = [];
  if (manifest.contributes.markdown) hooks.push('markdown');
  if (manifest.contributes.events?.length) hooks.push('onEvent');
  if (manifest.contributes.routes?.length) hooks.push('route');
  if (manifest.contributes.jobs?.length) hooks.push('onJob');
  return hooks;
}

/** Where an instance keeps a module's unpacked package and its data. */
export function moduleFolders(dataDir: string, uid: string, version = '', sha256 = ''): { packageDir: string; dataDir: string } {
  return {
    packageDir: join(dataDir, 'modules', 'packages', uid, `${version}-${sha256.slice(0, 16)}`),
    dataDir: join(dataDir, 'modules', 'data', uid),
  };
}

export class SiteModules implements RunningModules {
  private host: ModuleHost | null = null;
  private readonly active = new Map<string, ActiveModule>();
  private extensions: readonly MarkdownExtension[] = [];
  private renderSet = '';
  private chain: Promise<void> = Promise.resolve();
  private readonly offs: (() => void)[] = [];
  private readonly reported = new Map<string, string>();
  /** Event → the uids of running modules subscribed to it. */
  private subscribers = new Map<SiteEvent, string[]>();
  private pollTimer: NodeJS.Timeout | null = null;
  private delivering: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** uid → the jobs of running modules that declare some. */
  private jobs = new Map<string, readonly ManifestJob[]>();
  private jobTimer: NodeJS.Timeout | null = null;
  private runningJobs: Promise<unknown> = Promise.resolve();
  /** sha256s unpacked here and waiting for the other instances before activation. */
  private readonly preparing = new Set<string>();
  private readonly presence: InstancePresence;
  /** After the first reconcile: a module activated later is a change (its host starts at once). */
  private started = false;
  /** Told when the set of markdown modules changed (the background re-render starts). */
  onRenderSetChange: ((set: string) => void) | null = null;

  /**
   * `serving`: false in a short-lived process (the CLI), which is no instance the others wait for
   * before an activation, and leaves module jobs and events to the servers.
   */
  constructor(private readonly rt: Deps, readonly safeMode = false, private readonly serving = true) {
    this.presence = new InstancePresence(rt.db, serving && Boolean(rt.config.databaseUrl), (err) => rt.log.warn('module instance heartbeat failed', { err: String(err) }));
  }

  /** Reconciles now, then on every `modules` message and bus reconnect. */
  async start(): Promise<void> {
    setMarkdownProvider(this.provider);
    setEventSubscribers((event) => this.subscribers.get(event) ?? []);
    this.offs.push(this.rt.bus.subscribe(MODULES_CHANNEL, () => void this.reconcile()));
    this.offs.push(this.rt.bus.onReconnect(() => void this.reconcile()));
    if (this.safeMode) this.rt.log.warn('safe mode: every module is disabled (ATRIUM_SAFE_MODE)');
    this.presence.start(() => [...[...this.active.values()].map((a) => a.sha256), ...this.preparing]);
    await this.reconcile();
    this.started = true;
  }

  /** Brings this instance to the wanted state (one run at a time, in order). */
  reconcile(): Promise<void> {
    this.chain = this.chain.then(() => this.reconcileOnce()).catch((err: unknown) => {
      this.rt.log.error('module reconcile failed', { err: String(err) });
    });
    return this.chain;
  }

  list(): ActiveModule[] {
    return [...this.active.values()];
  }

  status(uid: string): ModuleStatus | null {
    return this.host?.status(uid) ?? null;
  }

  get moduleHost(): ModuleHost | null {
    return this.host;
  }

  get currentRenderSet(): string {
    return this.renderSet;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.jobTimer) clearTimeout(this.jobTimer);
    for (const off of this.offs) off();
    await this.delivering;
    await this.runningJobs;
    await this.chain;
    await this.presence.close();
    this.host?.close();
    setMarkdownProvider(null);
    setEventSubscribers(null);
  }

  /** Delivers due events while a running module subscribes to some, polling every 500 ms. */
  private pollEvents(): void {
    if (this.pollTimer || this.closed || !this.serving || !this.subscribers.size) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      const running = new Set([...this.subscribers.values()].flat());
      this.delivering = deliverDue(this.rt.db, this.host, running, this.rt.log)
        .catch((err: unknown) => { this.rt.log.error('module events failed', { err: String(err) }); return 0; })
        .then(() => this.pollEvents());
    }, EVENT_POLL_MS);
    this.pollTimer.unref();
  }

  /** Runs due jobs while a running module declares some, polling every 5 s. */
  private pollJobs(): void {
    if (this.jobTimer || this.closed || !this.serving || !this.jobs.size) return;
    this.jobTimer = setTimeout(() => {
      this.jobTimer = null;
      this.runningJobs = runDueJobs(this.rt.db, this.host, this.jobs, this.rt.log)
        .catch((err: unknown) => { this.rt.log.error('module jobs failed', { err: String(err) }); return 0; })
        .then(() => this.pollJobs());
    }, JOB_POLL_MS);
    this.jobTimer.unref();
  }

  private readonly provider: MarkdownProvider = {
    current: () => ({ extensions: this.extensions, renderSet: this.renderSet }),
    render: async (uid, items, ctx) => {
      if (!this.host) throw new Error('no module host');
      return this.host.call(uid, 'markdown', [items, ctx]);
    },
    reportFailure: (uid, err) => {
      const reason = (err instanceof Error ? err.message : String(err)).slice(0, 240);
      this.rt.log.error('module markdown failed', { uid, reason });
      if (this.reported.get(uid) === reason) return;
      this.reported.set(uid, reason);
      void this.rt.db.update(moduleInstall).set({ reason, updateTime: now() }).where(eq(moduleInstall.uid, uid)).catch(() => undefined);
    },
  };

  private hostFor(): ModuleHost {
    this.host ??= new ModuleHost({
      kv: new DbKvBackend(this.rt.db),
      runtimeDir: join(this.rt.config.dataDir, 'modules', 'run'),
      onDisabled: (uid, reason) => void this.disable(uid, `crashed: ${reason}`),
      onOutput: (uid, stream, line) => this.rt.log[stream === 'stderr' ? 'warn' : 'info'](`module ${uid}: ${line.slice(0, 500)}`),
    });
    return this.host;
  }

  /** Disables a module everywhere (wanted state) with the reason, and tells every instance. */
  private async disable(uid: string, reason: string): Promise<void> {
    await this.rt.db.update(moduleInstall).set({ enabled: 0, reason: reason.slice(0, 255), updateTime: now() }).where(eq(moduleInstall.uid, uid));
    this.rt.log.error('module disabled', { uid, reason });
    await this.rt.bus.publish(MODULES_CHANNEL, { uid, change: 'disabled' });
  }

  private async reconcileOnce(): Promise<void> {
    if (this.closed) return;
    const rows = this.safeMode ? [] : await this.rt.db.select().from(moduleInstall).where(and(eq(moduleInstall.enabled, 1), ne(moduleInstall.sha256, '')));
    const wanted = new Map(rows.map((r) => [r.uid, r]));
    for (const [uid] of this.active) {
      if (wanted.has(uid)) continue;
      this.host?.unregister(uid);
      this.active.delete(uid);
    }
    // A new or changed package is unpacked first, and activated once every live instance has it
    // (or the wait ran out: the instances without it are reported); the running version serves meanwhile.
    const incoming: { row: typeof moduleInstall.$inferSelect; manifest: Manifest; folders: ReturnType<typeof moduleFolders> }[] = [];
    for (const row of rows) {
      const a = this.active.get(row.uid);
      if (a && a.sha256 === row.sha256 && a.version === row.version) continue;
      try {
        incoming.push({ row, ...(await this.prepare(row)) });
        this.preparing.add(row.sha256);
      } catch (err) {
        // Activation that fails leaves the module disabled, with the reason for administrators.
        await this.disable(row.uid, `activation failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const waitStarted = Date.now();
    const lacking = await this.presence.waitForAll(incoming.map((i) => i.row.sha256));
    if (incoming.length) this.rt.log.info('module packages ready on every live instance', { uids: incoming.map((i) => i.row.uid), waitedMs: Date.now() - waitStarted });
    for (const { row, manifest, folders } of incoming) {
      this.preparing.delete(row.sha256);
      this.host?.unregister(row.uid);
      this.active.delete(row.uid);
      const hooks = hooksOf(manifest);
      try {
        if (manifest.entry.server && hooks.length) {
          this.hostFor().register({ uid: row.uid, version: row.version, packageDir: folders.packageDir, dataDir: folders.dataDir, serverEntry: manifest.entry.server, hooks });
          // Installed or upgraded now: content is about to be rendered again with it, so its host starts
          // while the set switches (at boot it starts with the first render, as every other host).
          if (manifest.contributes.markdown && this.serving && this.started) this.hostFor().warm(row.uid);
        }
      } catch (err) {
        await this.disable(row.uid, `activation failed: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      this.active.set(row.uid, { uid: row.uid, version: row.version, sha256: row.sha256, manifest, packageDir: folders.packageDir });
      this.reported.delete(row.uid);
      const without = lacking.get(row.sha256);
      if (without) {
        const reason = `activated after ${ACTIVATION_WAIT_S} s while these instances still lacked the package: ${without.join(', ')}`;
        this.rt.log.warn('module activated without every instance', { uid: row.uid, version: row.version, without });
        await this.rt.db.update(moduleInstall).set({ reason: reason.slice(0, 255) }).where(and(eq(moduleInstall.uid, row.uid), eq(moduleInstall.sha256, row.sha256)));
      }
    }
    await this.applySettings();
    const jobs = new Map<string, readonly ManifestJob[]>();
    for (const a of this.active.values()) {
      if (a.manifest.capabilities.includes('jobs') && a.manifest.entry.server && a.manifest.contributes.jobs?.length) jobs.set(a.uid, a.manifest.contributes.jobs);
    }
    await syncJobs(this.rt.db, jobs);
    this.jobs = jobs;
    this.pollJobs();
    const subscribers = new Map<SiteEvent, string[]>();
    for (const a of this.active.values()) {
      if (!a.manifest.capabilities.includes('events') || !a.manifest.entry.server) continue;
      for (const event of a.manifest.contributes.events ?? []) subscribers.set(event, [...(subscribers.get(event) ?? []), a.uid]);
    }
    this.subscribers = subscribers;
    this.pollEvents();
    const markdown = [...this.active.values()].filter((a) => a.manifest.contributes.markdown).sort((a, b) => (a.uid < b.uid ? -1 : 1));
    const set = markdown.map((a) => `${a.uid}@${a.version}`).join(',');
    if (set !== this.renderSet) {
      this.extensions = markdown.map((a) => ({ uid: a.uid, ...a.manifest.contributes.markdown }));
      this.renderSet = set;
      this.rt.log.info('module markdown set', { set: set || '(none)' });
      await this.rt.pageCache.invalidate(['site', 'ask', 'md', 'modules']);
      this.onRenderSetChange?.(set);
    }
  }

  /** The package's bytes: from the shared package table, else from the market's package storage. */
  private async packageOf(row: typeof moduleInstall.$inferSelect): Promise<string | Buffer | null> {
    const [kept] = await this.rt.db.select({ data: modulePackage.data }).from(modulePackage).where(eq(modulePackage.sha256, row.sha256)).limit(1);
    if (kept) return Buffer.from(kept.data, 'base64');
    const [v] = await this.rt.db.select({ packagePath: moduleVersion.packagePath, packageSize: moduleVersion.packageSize })
      .from(moduleVersion).innerJoin(module, eq(module.id, moduleVersion.moduleId))
      .where(and(eq(module.uid, row.uid), eq(moduleVersion.version, row.version))).limit(1);
    return v ? readPackage(this.rt, v.packagePath, v.packageSize) : null;
  }

  /** The settings of the running modules, read again on every reconcile (a change is a bus message). */
  private async applySettings(): Promise<void> {
    const host = this.host;
    if (!host) return;
    const configured = [...this.active.values()].filter((a) => a.manifest.contributes.settings?.length);
    const stored = await storedSettings(this.rt.db, configured.map((a) => a.uid));
    for (const a of configured) host.configure(a.uid, effectiveSettings(a.manifest, stored.get(a.uid) ?? {}));
  }

  /** Unpacks a package (checked against its pinned sha256) unless this instance has it; its manifest and folders. */
  private async prepare(row: typeof moduleInstall.$inferSelect): Promise<{ manifest: Manifest; folders: ReturnType<typeof moduleFolders> }> {
    const folders = moduleFolders(this.rt.config.dataDir, row.uid, row.version, row.sha256);
    if (!existsSync(join(folders.packageDir, MANIFEST_FILE))) {
      const source = await this.packageOf(row);
      if (!source) throw new Error(`the package of ${row.uid} ${row.version} is not in the package store`);
      const actual = await sha256Of(source);
      if (actual !== row.sha256) throw new Error(`the package of ${row.uid} ${row.version} no longer matches the installed sha256`);
      await rm(folders.packageDir, { recursive: true, force: true });
      await unpackPackage(source, folders.packageDir);
    }
    const manifest = Manifest.parse(JSON.parse(await readFile(join(folders.packageDir, MANIFEST_FILE), 'utf8')));
    if (manifest.uid !== row.uid || manifest.version !== row.version) throw new Error(`the package is ${manifest.uid} ${manifest.version}`);
    return { manifest, folders };
  }
}
