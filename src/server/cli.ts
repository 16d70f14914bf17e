// `npm run atrium -- <command>`: operator commands against the configured database.
// With PGlite the server must be stopped first (one process per data directory); with PostgreSQL
// and Redis the running instances drop their caches as soon as a command changes something.
import { readConfig } from '../lib/server/env';
import { createRuntime } from '../lib/server/runtime';
import { DatabaseLockedError } from '../lib/server/db/client';

const USAGE = `Usage: npm run atrium -- <command>

  config:list                 every site setting with its value
  config:get <name>           one setting
  config:set <name> <value>   change a setting (pages built from it are refreshed on every instance)
`;

async function run(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const runtime = await createRuntime({ ...readConfig(), logLevel: 'warn' });
  try {
    switch (command) {
      case 'config:list': {
        for (const [name, value] of await runtime.site.all()) process.stdout.write(`${name}\t${value}\n`);
        return 0;
      }
      case 'config:get': {
        const [name] = rest;
        const all = await runtime.site.all();
        if (!name || !all.has(name)) {
          process.stderr.write(`Unknown setting "${name ?? ''}". See: npm run atrium -- config:list\n`);
          return 1;
        }
        process.stdout.write(`${all.get(name)}\n`);
        return 0;
      }
      case 'config:set': {
        const [name, value] = rest;
        if (!name || value === undefined) {
          process.stderr.write('config:set needs a name and a value.\n');
          return 2;
        }
        if (name === 'head_nav') {
          try { JSON.parse(value); } catch { process.stderr.write('head_nav must be JSON, e.g. [{"title":{"zh-cn":"社区","en":"Community"},"url":"/ask"}]\n'); return 1; }
        }
        try {
          await runtime.site.set(name, value);
        } catch (err) {
          process.stderr.write(`${(err as Error).message}. See: npm run atrium -- config:list\n`);
          return 1;
        }
        process.stdout.write(`${name} = ${value}\n`);
        return 0;
      }
      default:
        process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } finally {
    await runtime.close();
  }
}

run(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`${err instanceof DatabaseLockedError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
