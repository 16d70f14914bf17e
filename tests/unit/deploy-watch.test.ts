import { describe, expect, it } from 'vitest';
import { isChunkLoadError, mayReload, RELOAD_GUARD_MS } from '../../src/lib/client/deploy-watch';

describe('new-deployment reload guard', () => {
  it('reloads at most once per guard time', () => {
    expect(RELOAD_GUARD_MS).toBe(10_000);
    expect(mayReload(50_000, null)).toBe(true);
    expect(mayReload(50_000, 45_000)).toBe(false);
    expect(mayReload(50_000, 40_000)).toBe(true);
    expect(mayReload(50_000, 60_000)).toBe(true);
  });

  it('recognises chunk load failures of every browser', () => {
    expect(isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: /_astro/x.js'))).toBe(true);
    expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isChunkLoadError(new TypeError('error loading dynamically imported module'))).toBe(true);
    expect(isChunkLoadError(new Error('boom'))).toBe(false);
  });
});
