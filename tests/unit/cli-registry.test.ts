// The operator commands' registry (issue 25, item 3): every area registers its commands, the help
// is generated from the registrations, options a command does not declare are refused, and a
// command registered at run time (as a module will) is listed, run and audited like the others.
import { afterEach, describe, expect, it } from 'vitest';
import { answerWithoutRuntime, runCommand, usage } from '../../src/server/cli';
import { listCommands, maskSecrets, parseCommand, registerCommand, unregisterCommand, findCommand } from '../../src/lib/server/commands';
import { registry } from '../../src/lib/shared/registry';
import type { Runtime } from '../../src/lib/server/runtime';
import { Invalidation } from '../../src/lib/server/invalidation';
import { createMemoryBus } from '../../src/lib/server/bus';

function capture(): { io: { out(t: string): void; err(t: string): void; cwd: string }; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { io: { out: (t) => { out += t; }, err: (t) => { err += t; }, cwd: '/tmp' }, out: () => out, err: () => err };
}

describe('the CLI command registry', () => {
  afterEach(() => { unregisterCommand('test:echo'); });

  it('holds every area\'s commands, and the help lists each of them', () => {
    const names = listCommands().map((c) => c.name);
    for (const n of ['config:set', 'user:money', 'invoice:issue', 'withdraw:pay', 'md:import', 'module:install', 'developer:review', 'group:rules', 'backup', 'restore', 'chat:add']) expect(names).toContain(n);
    expect(new Set(names).size).toBe(names.length);
    const help = usage();
    for (const c of listCommands()) expect(help).toContain(`  ${c.name}`);
    // A section is one block: config's three commands come together, before the members'.
    expect(help.indexOf('config:set')).toBeLessThan(help.indexOf('user:list'));
    expect(help).toMatch(/ {2}config:set <name> <value> +change a setting/);
  });

  it('answers help and usage errors without a runtime, with the exit codes of before', () => {
    const none = capture();
    expect(answerWithoutRuntime([], none.io)).toBe(2);
    expect(none.out()).toBe(usage());
    const help = capture();
    expect(answerWithoutRuntime(['help'], help.io)).toBe(0);
    const unknown = capture();
    expect(answerWithoutRuntime(['no:such'], unknown.io)).toBe(2);
    expect(unknown.err()).toBe(`Unknown command "no:such".\n\n${usage()}`);
    const one = capture();
    expect(answerWithoutRuntime(['md:editor', '--help'], one.io)).toBe(0);
    expect(one.out()).toBe('Usage: npm run atrium -- md:editor <book> <account> [--remove]\n  let a member edit a book (or stop them)\n');
    expect(answerWithoutRuntime(['config:set', 'a', 'b'], capture().io)).toBeNull();
  });

  it('refuses an option the command does not declare, and a declared one without its value', () => {
    const wrong = capture();
    expect(answerWithoutRuntime(['group:rename', 'A', 'B', '--rules', 'x'], wrong.io)).toBe(2);
    expect(wrong.err()).toBe('Unknown option "--rules" for group:rename (it takes --title-en).\nUsage: npm run atrium -- group:rename <group> <name> [--title-en <name>]\n');
    const none = capture();
    expect(answerWithoutRuntime(['user:list', '--all'], none.io)).toBe(2);
    expect(none.err()).toMatch(/^Unknown option "--all" for user:list \(it takes no options\)\./);
    const missing = capture();
    expect(answerWithoutRuntime(['md:import', 'folder', '--book'], missing.io)).toBe(2);
    expect(missing.err()).toMatch(/^--book needs a value\./);
    const flag = capture();
    expect(answerWithoutRuntime(['md:editor', 'b', 'a', '--remove=yes'], flag.io)).toBe(2);
    expect(flag.err()).toMatch(/^--remove takes no value\./);
  });

  it('reads a negative number as an argument, not an option', () => {
    const parsed = parseCommand(findCommand('user:money')!, ['bob', '-3', 'a', 'fine']);
    expect(parsed).toMatchObject({ ok: true, args: ['bob', '-3', 'a', 'fine'] });
    expect(parseCommand(findCommand('user:money')!, ['bob', '-12.50', 'fine'])).toMatchObject({ ok: true, args: ['bob', '-12.50', 'fine'] });
  });

  it('masks the secret arguments and options in what the audit row shows', () => {
    const add = findCommand('chat:add')!;
    const argv = ['m1', '--base-url', 'https://x.test/v1', '--key', 'sk-1', '--model=m', '--key=sk-2'];
    const p = parseCommand(add, argv);
    if (!p.ok) throw new Error(p.error);
    expect(maskSecrets(add, argv, p.tokens)).toEqual(['m1', '--base-url', 'https://x.test/v1', '--key', '********', '--model=m', '--key=********']);
    const create = findCommand('user:create')!;
    const argv2 = ['--group', 'Members', 'dave', 'dave@example.com', 'pw-secret'];
    const q = parseCommand(create, argv2);
    if (!q.ok) throw new Error(q.error);
    expect(maskSecrets(create, argv2, q.tokens)).toEqual(['--group', 'Members', 'dave', 'dave@example.com', '********']);
  });

  it('runs a command registered at run time, with its options, and writes its audit row', async () => {
    registerCommand({
      name: 'test:echo', usage: '<word> [--loud]', section: 'test', options: { loud: { type: 'boolean' } }, summary: 'says a word',
      async run({ args: [word], options, out }) { out(`${options.loud ? word!.toUpperCase() : word}\n`); return 0; },
    });
    expect(usage()).toMatch(/\n {2}test:echo <word> \[--loud\] +says a word\n/);
    const rows: unknown[][] = [];
    const runtime = { db: { insert: () => ({ values: (v: unknown) => { rows.push([v]); return Promise.resolve(); } }) }, log: { warn: () => undefined }, invalidation: new Invalidation(createMemoryBus()) } as unknown as Runtime;
    const c = capture();
    expect(await runCommand(['test:echo', 'hi', '--loud'], runtime, c.io)).toBe(0);
    expect(c.out()).toBe('HI\n');
    expect(rows).toHaveLength(1);
    expect(rows[0]![0]).toMatchObject({ username: 'cli', action: 'test:echo', target: 'hi', after: 'hi --loud' });
    unregisterCommand('test:echo');
    expect(answerWithoutRuntime(['test:echo', 'x'], capture().io)).toBe(2);
  });

  it('is one list for every copy of the module (the server and Astro bundles each carry one)', () => {
    // A second copy of the registry module reaches the same list through the global symbol.
    const other = registry<{ name: string }>('cli', (c) => c.name);
    expect(other.list().map((c) => c.name)).toEqual(listCommands().map((c) => c.name));
  });
});
