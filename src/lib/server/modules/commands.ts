// `npm run atrium -- module:*`: the lifecycle of the site's modules (install, upgrade, roll back,
// enable, disable, uninstall, safe mode) and packing a module folder for authors. Every change goes
// through lifecycle.ts: the wanted state in the database, the audit log, the bus to every instance.
import { refused, registerCommand, stringOption, type CommandContext } from '../commands';
import { CLI_ACTOR } from '../admin/audit';
import { AppError } from '../http';
import { SITE_MODULES, installReviewed } from './installs';
import { disableAll, installable, installedList, installPackaged, rollbackModule, setModuleEnabled, uninstall, upgradeModule } from './lifecycle';
import { jobRows } from './jobs';
import { packCommand } from './pack';
import { connectRemote, disconnectRemote, installRemote, listRemote, marketUrl, remotes } from './remote';

/** `uid` or `uid@version`. */
function target(arg: string | undefined): { uid: string; version?: string } | null {
  const m = /^([a-z0-9][a-z0-9_-]{1,39})(?:@(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?))?$/.exec(arg ?? '');
  return m ? { uid: m[1]!, ...(m[2] ? { version: m[2] } : {}) } : null;
}

/** Runs a lifecycle step, printing its refusal (in English) as an exit code 1. */
async function step(ctx: CommandContext, work: () => Promise<string>): Promise<number> {
  const done = await work().catch((e: unknown) => refused({ err: ctx.err }, e));
  if (typeof done === 'number') return done;
  ctx.out(`${done}\n`);
  return 0;
}

registerCommand({
  name: 'module:list', section: 'modules', readOnly: true,
  summary: 'installed modules: version, enabled, package hash, running here or not, the last problem, each scheduled job\'s last run',
  async run({ runtime, out }) {
    const rows = await installedList(runtime);
    const running = new Set(runtime.modules.list().map((m) => m.uid));
    const jobs = await jobRows(runtime.db, rows.map((r) => r.uid));
    const iso = (s: number): string => new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' ');
    for (const uid of Object.keys(SITE_MODULES)) if (!rows.some((r) => r.uid === uid)) out(`${uid}\t-\tnot installed\n`);
    for (const r of rows) {
      const state = r.enabled ? 'enabled' : 'disabled';
      out(`${r.uid}\t${r.version}\t${state}${r.sha256 ? `\tsha256 ${r.sha256.slice(0, 12)}` : '\tbuilt in'}${r.previousVersion ? `\tprevious ${r.previousVersion}` : ''}${running.has(r.uid) ? '\trunning here' : ''}${r.reason ? `\t(${r.reason})` : ''}\n`);
      for (const j of jobs.filter((x) => x.moduleUid === r.uid)) {
        const last = !j.lastTime ? 'not run yet' : j.lastOk ? `last run ${iso(j.lastTime)} UTC ok (${j.lastMs} ms)` : `last run ${iso(j.lastTime)} UTC failed: ${j.lastError}`;
        out(`  job ${j.name}\t${last}\tnext ${iso(j.nextTime)} UTC\truns ${j.runs}, failed ${j.failures}\n`);
      }
    }
    if (runtime.modules.safeMode) out('safe mode: every module is disabled on this instance (ATRIUM_SAFE_MODE)\n');
    return 0;
  },
});

registerCommand({
  name: 'module:install', usage: '<uid>[@version]', section: 'modules',
  summary: 'installs a module from this site\'s market (its reviewed package, checked against the pinned sha256), e.g. module:install math',
  async run(ctx) {
    const t = target(ctx.args[0]);
    const kind = t ? await installable(ctx.runtime, t.uid) : null;
    if (!t || !kind) {
      ctx.err(`Unknown module "${ctx.args[0] ?? ''}": give the uid of a published module of this site's market (module:list shows what is installed).\n`);
      return 2;
    }
    if (kind === 'builtin') {
      return step(ctx, async () => {
        const v = await installReviewed(ctx.runtime, t.uid);
        await ctx.runtime.invalidation.touched('site', 'ask', 'md', 'modules');
        return `Installed ${t.uid} ${String(v)}.`;
      });
    }
    return step(ctx, async () => `Installed ${t.uid} ${await installPackaged(ctx.runtime, t.uid, CLI_ACTOR, t.version)}.`);
  },
});

registerCommand({
  name: 'module:upgrade', usage: '<uid>[@version]', section: 'modules',
  summary: 'upgrades an installed module to its newest reviewed version (or the one given)',
  async run(ctx) {
    const t = target(ctx.args[0]);
    if (!t) { ctx.err('Usage: module:upgrade <uid>[@version]\n'); return 2; }
    return step(ctx, async () => `Upgraded ${t.uid} to ${await upgradeModule(ctx.runtime, t.uid, CLI_ACTOR, t.version)}.`);
  },
});

registerCommand({
  name: 'module:rollback', usage: '<uid>', section: 'modules',
  summary: 'goes back to the version before the last upgrade',
  async run(ctx) {
    const t = target(ctx.args[0]);
    if (!t) { ctx.err('Usage: module:rollback <uid>\n'); return 2; }
    return step(ctx, async () => `Rolled ${t.uid} back to ${await rollbackModule(ctx.runtime, t.uid, CLI_ACTOR)}.`);
  },
});

for (const enabled of [true, false]) {
  registerCommand({
    name: enabled ? 'module:enable' : 'module:disable', usage: enabled ? '<uid>' : '<uid> | --all', section: 'modules',
    summary: enabled ? 'enables an installed module' : 'disables an installed module (or every one: --all, the safe mode that survives restarts); its data stays',
    ...(enabled ? {} : { options: { all: { type: 'boolean' as const } } }),
    async run(ctx) {
      if (!enabled && ctx.options.all) {
        const uids = await disableAll(ctx.runtime, CLI_ACTOR, 'safe mode (module:disable --all)');
        ctx.out(uids.length ? `Disabled ${uids.join(', ')}.\n` : 'No module was enabled.\n');
        return 0;
      }
      const t = target(ctx.args[0]);
      if (!t) { ctx.err(`Usage: ${enabled ? 'module:enable <uid>' : 'module:disable <uid> | --all'}\n`); return 2; }
      return step(ctx, async () => {
        await setModuleEnabled(ctx.runtime, t.uid, enabled, CLI_ACTOR, enabled ? '' : 'disabled from the CLI');
        return `${enabled ? 'Enabled' : 'Disabled'} ${t.uid}.`;
      });
    },
  });
}

registerCommand({
  name: 'module:uninstall', usage: '<uid> [--purge]', section: 'modules',
  summary: 'removes an installed module; its data stays for a later install unless --purge',
  options: { purge: { type: 'boolean' } },
  async run(ctx) {
    const t = target(ctx.args[0]);
    if (!t) { ctx.err('Usage: module:uninstall <uid> [--purge]\n'); return 2; }
    const purge = ctx.options.purge === true;
    return step(ctx, async () => {
      const gone = await uninstall(ctx.runtime, t.uid, CLI_ACTOR, purge);
      await ctx.runtime.invalidation.touched('site', 'ask', 'md', 'modules');
      return gone ? `Uninstalled ${t.uid}${purge ? ' and removed its data' : ''}.` : `${t.uid} was not installed${purge ? '; its data was removed' : ''}.`;
    });
  },
});

registerCommand({
  name: 'module:pack', usage: '<folder> [out.zip]', section: 'modules', readOnly: true,
  summary: 'a module folder (atrium.json at its root) as a reproducible package; prints every problem or the sha256',
  run: ({ args, path, out, err }) => packCommand(args, path, { out, err }),
});

registerCommand({
  name: 'module:remote:connect', usage: '<market-url> <token> [--fingerprint <hex>]', section: 'modules',
  summary: 'connects to another Atrium\'s market with a member API token made there, pinning the market\'s ed25519 key (prints its fingerprint; --fingerprint refuses any other key)',
  options: { fingerprint: { type: 'string' } },
  secret: { args: [1] },
  async run(ctx) {
    const [url, token] = ctx.args;
    if (!url || !token) { ctx.err('Usage: module:remote:connect <market-url> <token> [--fingerprint <hex>]\n'); return 2; }
    const fingerprint = stringOption(ctx.options, 'fingerprint');
    return step(ctx, async () => {
      const { remote, modules } = await connectRemote(ctx.runtime, { url, token, ...(fingerprint ? { expectFingerprint: fingerprint } : {}) });
      return `Connected to ${remote.url}.\nPinned market key fingerprint: ${remote.fingerprint}\n(compare it with the one the market's operator publishes; every install is checked against this key)\n${modules.length} module(s) offered to this token.`;
    });
  },
});

registerCommand({
  name: 'module:remote:list', section: 'modules', readOnly: true,
  summary: 'what each connected market offers this site\'s token (free, or bought by its member): uid, newest version, installed version here',
  async run(ctx) {
    return step(ctx, async () => {
      const installed = new Map((await installedList(ctx.runtime)).map((r) => [r.uid, r.version]));
      const lines: string[] = [];
      for (const { remote, modules } of await listRemote(ctx.runtime)) {
        lines.push(`${remote.url}\tkey ${remote.fingerprint.slice(0, 16)}…`);
        for (const m of modules) lines.push(`  ${m.uid}\t${m.latest}\t${m.free ? 'free' : 'bought'}\t${installed.has(m.uid) ? `installed ${installed.get(m.uid)}` : 'not installed'}\t${m.nameEn || m.name}`);
        if (!modules.length) lines.push('  (nothing offered to this token)');
      }
      return lines.join('\n');
    });
  },
});

registerCommand({
  name: 'module:remote:disconnect', usage: '<market-url>', section: 'modules',
  summary: 'forgets the token of a connected market: nothing more is listed or installed from it; modules installed from it keep running',
  async run(ctx) {
    const [input] = ctx.args;
    if (!input) { ctx.err('Usage: module:remote:disconnect <market-url>\n'); return 2; }
    return step(ctx, async () => {
      const url = marketUrl(input);
      const remote = (await remotes(ctx.runtime)).find((r) => r.url === url);
      if (!remote) throw new AppError('market.remote.notConnectedUrl', { values: { url } });
      const gone = await disconnectRemote(ctx.runtime, remote.id);
      return `Disconnected from ${gone.url}. Modules installed from it keep running; connect again to take their upgrades.`;
    });
  },
});

registerCommand({
  name: 'module:remote:install', usage: '<uid>[@version]', section: 'modules',
  summary: 'installs or upgrades a module from a connected market, after checking its signature with the pinned key and its sha256',
  async run(ctx) {
    const t = target(ctx.args[0]);
    if (!t) { ctx.err('Usage: module:remote:install <uid>[@version]\n'); return 2; }
    return step(ctx, async () => {
      const done = await installRemote(ctx.runtime, t.uid, t.version);
      return `Installed ${t.uid} ${done.version} from ${done.url} (signature and sha256 checked with the pinned key).`;
    });
  },
});
