// `npm run atrium -- module:list|install|uninstall|pack`: the site modules this codebase ships, and
// module packages for authors.
import { refused, registerCommand } from '../commands';
import { SITE_MODULES, installReviewed, installedModules, uninstallModule } from './installs';
import { packCommand } from './pack';

registerCommand({
  name: 'module:list', section: 'modules', readOnly: true,
  summary: 'site modules this codebase ships, and which are installed',
  async run({ runtime, out }) {
    const installed = new Map((await installedModules(runtime.db)).map((m) => [m.uid, m]));
    for (const [uid, info] of Object.entries(SITE_MODULES)) {
      const row = installed.get(uid);
      out(`${uid}\t${info.version}\t${row ? `installed ${row.version}` : 'not installed'}\n`);
    }
    return 0;
  },
});

for (const action of ['install', 'uninstall'] as const) {
  registerCommand({
    name: `module:${action}`, usage: '<uid>', section: 'modules',
    summary: action === 'install' ? 'e.g. module:install editor (the forum and docs editors need it)' : 'remove an installed site module',
    async run({ runtime, args: [uid], out, err }) {
      if (!uid || !SITE_MODULES[uid]) {
        err(`Unknown module "${uid ?? ''}". Site modules: ${Object.keys(SITE_MODULES).join(', ')}\n`);
        return 2;
      }
      // A package changed after review (or made for another Atrium) is refused with the reason.
      const changed = action === 'install' ? await installReviewed(runtime, uid).catch((e: unknown) => refused({ err }, e)) : await uninstallModule(runtime.db, uid);
      if (typeof changed === 'number') return changed;
      await runtime.pageCache.invalidate(['site', 'ask', 'md', 'modules']);
      out(action === 'install' ? `Installed ${uid} ${String(changed)}.\n` : changed ? `Uninstalled ${uid}.\n` : `${uid} was not installed.\n`);
      return 0;
    },
  });
}

registerCommand({
  name: 'module:pack', usage: '<folder> [out.zip]', section: 'modules', readOnly: true,
  summary: 'a module folder (atrium.json at its root) as a reproducible package; prints every problem or the sha256',
  run: ({ args, path, out, err }) => packCommand(args, path, { out, err }),
});
