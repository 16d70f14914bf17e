// What a module may send to its store (lib/server/modules/host/kv.ts) and the flags its host runs with.
import { describe, expect, it } from 'vitest';
import { isJsonValue, KV_LIMITS, MemoryKvBackend, runKv } from '../../src/lib/server/modules/host/kv';
import { hostExecArgv } from '../../src/lib/server/modules/host/module-process';

describe('module store requests', () => {
  it('runs get/set/delete/list scoped to the asking module', async () => {
    const kv = new MemoryKvBackend();
    await runKv(kv, 'a', { op: 'set', key: 'x:1', value: { n: [1, 'two', null, true] } });
    await runKv(kv, 'a', { op: 'set', key: 'x:0', value: 0 });
    await runKv(kv, 'b', { op: 'set', key: 'x:2', value: 'b' });
    expect(await runKv(kv, 'a', { op: 'get', key: 'x:1' })).toEqual({ n: [1, 'two', null, true] });
    expect(await runKv(kv, 'a', { op: 'list', prefix: 'x:' })).toEqual([{ key: 'x:0', value: 0 }, { key: 'x:1', value: { n: [1, 'two', null, true] } }]);
    expect(await runKv(kv, 'a', { op: 'list' })).toHaveLength(2);
    expect(await runKv(kv, 'a', { op: 'get', key: 'x:2' })).toBeNull();
    expect(await runKv(kv, 'a', { op: 'delete', key: 'x:1' })).toBe(true);
    expect(await runKv(kv, 'a', { op: 'delete', key: 'x:1' })).toBe(false);
  });

  it.each([
    [{ op: 'get', key: '' }, /must not be empty/],
    [{ op: 'get', key: 3 }, /must be a string/],
    [{ op: 'get', key: 'a'.repeat(KV_LIMITS.keyMax + 1) }, /longer than 200/],
    [{ op: 'set', key: 'a\nb', value: 1 }, /control characters/],
    [{ op: 'set', key: 'k', value: new Date(0) }, /must be JSON/],
    [{ op: 'set', key: 'k', value: new Map() }, /must be JSON/],
    [{ op: 'set', key: 'k', value: Number.NaN }, /must be JSON/],
    [{ op: 'set', key: 'k', value: undefined }, /must be JSON/],
    [{ op: 'set', key: 'k', value: 'x'.repeat(KV_LIMITS.valueBytesMax) }, /larger than 65536 bytes/],
    [{ op: 'list', prefix: 7 }, /prefix must be a string/],
    [{ op: 'drop' }, /unknown store operation/],
  ])('refuses %o', async (req, message) => {
    await expect(runKv(new MemoryKvBackend(), 'a', req)).rejects.toThrow(message);
  });

  it('accepts only plain JSON, not too deep', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(isJsonValue(deep)).toBe(false);
    expect(isJsonValue({ a: [{ b: 'c' }], d: -1.5, e: null })).toBe(true);
    expect(isJsonValue(Object.create(null))).toBe(true);
    expect(isJsonValue(new (class X {})())).toBe(false);
    expect(isJsonValue(1n)).toBe(false);
  });
});

describe('module host flags', () => {
  it('reads its package and data folders, writes only its data folder, no processes or workers, capped heap', () => {
    const argv = hostExecArgv({ uid: 'm', version: '1.0.0', packageDir: '/srv/p', dataDir: '/srv/d', serverEntry: 'server.mjs', hooks: [] }, 64);
    expect(argv).toEqual(['--permission', '--allow-fs-read=/srv/p', '--allow-fs-read=/srv/d', '--allow-fs-write=/srv/d', '--max-old-space-size=64', '--max-semi-space-size=1', '--no-opt', '--single-threaded']);
    expect(argv.join(' ')).not.toMatch(/allow-child-process|allow-worker|allow-addons|allow-wasi/);
  });
});
