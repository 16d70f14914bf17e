import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hostMemoryBytes, missingServerEnv, missingV8Flags, SERVER_ENV, SERVER_V8_FLAGS, serverV8Flags, SMALL_HOST_BYTES } from '../../src/server/v8-flags';

describe('missingV8Flags', () => {
  it('asks for every server flag when none was given', () => {
    expect(missingV8Flags([], '')).toEqual(SERVER_V8_FLAGS);
    expect(SERVER_V8_FLAGS).toEqual(['--max-semi-space-size=4', '--expose-gc']);
  });

  it('asks for nothing once the flags are on the command line (as after the re-exec)', () => {
    expect(missingV8Flags(SERVER_V8_FLAGS, '')).toEqual([]);
  });

  it('leaves a flag the operator set, with another value or negated, on the command line or in NODE_OPTIONS', () => {
    expect(missingV8Flags(['--max-semi-space-size=32', '--liftoff-only'], '')).toEqual(['--expose-gc']);
    expect(missingV8Flags([], '--max_semi_space_size=16')).toEqual(['--expose-gc']);
    expect(missingV8Flags([], '--max_semi_space_size=16  --expose-gc')).toEqual([]);
  });
});

describe('serverV8Flags', () => {
  const GB = 1024 ** 3;
  it('adds --liftoff-only for PGlite on a host with less than 2 GB, not on PostgreSQL or a larger host', () => {
    expect(SMALL_HOST_BYTES).toBe(2 * GB);
    expect(serverV8Flags({}, 1 * GB)).toEqual([...SERVER_V8_FLAGS, '--liftoff-only']);
    expect(serverV8Flags({}, 2 * GB)).toEqual(SERVER_V8_FLAGS);
    expect(serverV8Flags({ DATABASE_URL: 'postgres://db/atrium' }, 1 * GB)).toEqual(SERVER_V8_FLAGS);
  });

  it('leaves the choice to an operator who gave it, either way', () => {
    const small = serverV8Flags({}, GB / 2);
    expect(missingV8Flags([], '', small)).toEqual(small);
    expect(missingV8Flags(['--no-liftoff-only'], '', small)).toEqual(SERVER_V8_FLAGS);
    expect(missingV8Flags([...SERVER_V8_FLAGS, '--liftoff-only'], '', small)).toEqual([]);
  });

  it('reads the host\'s memory as the smaller of the machine and a cgroup limit', () => {
    expect(hostMemoryBytes(24 * GB, undefined)).toBe(24 * GB);
    expect(hostMemoryBytes(24 * GB, 0)).toBe(24 * GB);
    expect(hostMemoryBytes(24 * GB, GB)).toBe(GB);
    expect(hostMemoryBytes(24 * GB, 9223372036854771712)).toBe(24 * GB); // cgroup v1 "no limit"
  });
});

describe('missingServerEnv', () => {
  it('asks for the fixed malloc mmap threshold when the environment lacks it', () => {
    expect(SERVER_ENV).toEqual({ MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(missingServerEnv({})).toEqual(SERVER_ENV);
    expect(missingServerEnv({ MALLOC_MMAP_THRESHOLD_: '' })).toEqual(SERVER_ENV);
  });

  it('leaves a value the operator set', () => {
    expect(missingServerEnv({ MALLOC_MMAP_THRESHOLD_: '1048576' })).toEqual({});
  });
});

describe('the entry (dist/atrium.mjs)', () => {
  // An ES module's static imports load before its own code: anything the entry imported besides the
  // re-exec would load (PGlite, shiki, …) only to be thrown away when the process re-executes.
  const importsOf = (file: string): string[] =>
    [...readFileSync(new URL(`../../src/server/${file}`, import.meta.url), 'utf8').matchAll(/^import\s[^;]*?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);

  it('loads only the re-exec, its flags and Node\'s own modules before the server', () => {
    expect(importsOf('entry.ts')).toEqual(['./reexec']);
    expect(importsOf('reexec.ts')).toEqual(['node:os', './v8-flags']);
    expect(importsOf('v8-flags.ts')).toEqual([]);
    expect(readFileSync(new URL('../../src/server/entry.ts', import.meta.url), 'utf8')).toContain("await import(new URL('./atrium-main.mjs', import.meta.url).href)");
  });
});
