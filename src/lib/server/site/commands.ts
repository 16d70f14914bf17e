// `npm run atrium -- config:*`: the site settings.
import { registerCommand } from '../commands';

registerCommand({
  name: 'config:list', section: 'config', readOnly: true,
  summary: 'every site setting with its value',
  async run({ runtime, out }) {
    for (const [name, value] of await runtime.site.all()) out(`${name}\t${name.endsWith('_secret') ? '(hidden)' : value}\n`);
    return 0;
  },
});

registerCommand({
  name: 'config:get', usage: '<name>', section: 'config', readOnly: true,
  summary: 'one setting',
  async run({ runtime, args: [name], out, err }) {
    const all = await runtime.site.all();
    if (!name || !all.has(name)) {
      err(`Unknown setting "${name ?? ''}". See: npm run atrium -- config:list\n`);
      return 1;
    }
    out(`${all.get(name)}\n`);
    return 0;
  },
});

registerCommand({
  name: 'config:set', usage: '<name> <value>', section: 'config',
  summary: 'change a setting (pages built from it are refreshed on every instance)',
  // The audit row shows the setting's value before and after.
  audit: {
    before: async ({ runtime, args: [name] }) => (name ? (await runtime.site.all()).get(name) ?? '' : ''),
    after: ({ args }) => args[1] ?? '',
  },
  async run({ runtime, args: [name, value], out, err }) {
    if (!name || value === undefined) {
      err('config:set needs a name and a value.\n');
      return 2;
    }
    if (name === 'head_nav') {
      try { JSON.parse(value); } catch { err('head_nav must be JSON, e.g. [{"title":{"zh-cn":"社区","en":"Community"},"url":"/ask"}]\n'); return 1; }
    }
    try {
      await runtime.site.set(name, value);
    } catch (e) {
      err(`${(e as Error).message}. See: npm run atrium -- config:list\n`);
      return 1;
    }
    out(`${name} = ${value}\n`);
    return 0;
  },
});
