import { describe, expect, it } from 'vitest';
import { walkTier } from '../../src/lib/server/ask/search';

// 数据库 in the forum bench: the sample's 1,000 matches came from the first 1,050 of 18,703 heap pages.
const span = { maxId: 100_000, blocks: 18_703, lastBlock: 1049 };
const titles = { sampled: 136, candidates: 136, walkCost: 1 };
const bodies = { sampled: 543, candidates: 1000, walkCost: 6 };

describe('walkTier', () => {
  it('walks a common word newest first for the first pages', () => {
    expect(walkTier(titles, 20, span)).toBe(true);
    expect(walkTier(bodies, 20, span)).toBe(true);
    expect(walkTier(bodies, 100, span)).toBe(true);
  });

  it('reads deep pages by a bitmap scan: the walk would pass more rows than the index finds', () => {
    expect(walkTier(titles, 260, span)).toBe(false);
    expect(walkTier(bodies, 1000, span)).toBe(false);
  });

  it('never walks for a tier the sample did not see, or barely saw', () => {
    expect(walkTier({ ...titles, sampled: 0, candidates: 0 }, 1, span)).toBe(false);
    expect(walkTier({ ...titles, sampled: 1, candidates: 1 }, 20, span)).toBe(false);
  });

  it('scales the sample by how much of the table it had to read', () => {
    const tier = { sampled: 50, candidates: 50, walkCost: 1 };
    // Its matches all in the first tenth of the heap: ~500 posts in the table, 1 in 200.
    expect(walkTier(tier, 20, { maxId: 100_000, blocks: 10_000, lastBlock: 999 })).toBe(false);
    // In the first hundredth: ~5,000 posts, 1 in 20.
    expect(walkTier(tier, 20, { maxId: 100_000, blocks: 10_000, lastBlock: 99 })).toBe(true);
  });
});
