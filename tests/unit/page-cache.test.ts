import { describe, expect, it } from 'vitest';
import { PageCache } from '../../src/lib/server/page-cache';
import { createMemoryBus } from '../../src/lib/server/bus';
import { Invalidation } from '../../src/lib/server/invalidation';
import type { CacheTag } from '../../src/lib/server/cache-tags';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

const page = (body: string, tags: CacheTag[]) => ({ status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(body), tags });

describe('page cache', () => {
  it('stores pages with compressed variants and an etag', async () => {
    const cache = new PageCache(1024 * 1024, new Invalidation(createMemoryBus()));
    const entry = await cache.set('k', page('<p>hello</p>'.repeat(50), ['site']), cache.generation);
    expect(entry?.etag).toMatch(/^"[\w-]+"$/);
    expect(brotliDecompressSync(entry!.br).toString()).toBe('<p>hello</p>'.repeat(50));
    expect(gunzipSync(entry!.gzip).toString()).toBe('<p>hello</p>'.repeat(50));
    expect(cache.get('k')).toBe(entry);
  });

  it('drops pages by tag and keeps the others', async () => {
    const cache = new PageCache(1024 * 1024, new Invalidation(createMemoryBus()));
    await cache.set('a', page('a', ['site', 'ask']), cache.generation);
    await cache.set('b', page('b', ['site', 'md']), cache.generation);
    await cache.invalidate(['ask']);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeDefined();
  });

  it('refuses a render that began before an invalidation', async () => {
    const cache = new PageCache(1024 * 1024, new Invalidation(createMemoryBus()));
    const before = cache.generation;
    await cache.invalidate(['site']);
    expect(await cache.set('a', page('stale', ['site']), before)).toBeNull();
    expect(cache.get('a')).toBeUndefined();
  });

  it('evicts the least recently used pages beyond its size', async () => {
    const cache = new PageCache(3000, new Invalidation(createMemoryBus()));
    const big = (c: string) => page(Array.from({ length: 600 }, (_, i) => `${c}${i}`).join('').slice(0, 700), ['site']);
    await cache.set('1', big('a'), cache.generation);
    await cache.set('2', big('b'), cache.generation);
    cache.get('1');
    await cache.set('3', big('c'), cache.generation);
    expect(cache.get('2')).toBeUndefined();
    expect(cache.get('1')).toBeDefined();
    expect(cache.get('3')).toBeDefined();
  });

  it('is disabled with a size of zero', async () => {
    const cache = new PageCache(0, new Invalidation(createMemoryBus()));
    expect(await cache.set('a', page('x', ['site']), cache.generation)).toBeNull();
  });
});
