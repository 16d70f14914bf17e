// `npm run atrium -- module:list|install|uninstall`: the site modules this codebase ships.
import { registerCommand } from '../commands';
import { SITE_MODULES, installModule, installedModules, uninstallModule } from './installs';

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
      const changed = action === 'install' ? await installModule(runtime.db, uid) : await uninstallModule(runtime.db, uid);
      await runtime.pageCache.invalidate(['site', 'ask', 'md', 'modules']);
      out(action === 'install' ? `Installed ${uid} ${String(changed)}.\n` : changed ? `Uninstalled ${uid}.\n` : `${uid} was not installed.\n`);
      return 0;
    },
  });
}
