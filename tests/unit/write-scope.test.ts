// The unit of work that carries cache invalidation with the write: tags declared where data changes
// are published once, after the transactions that changed it committed, and never for one that
// rolled back.
import { describe, expect, it } from 'vitest';
import { inTransaction, touched, withWrites, type Transactional } from '../../src/lib/server/write-scope';
import { Invalidation } from '../../src/lib/server/invalidation';
import { createMemoryBus } from '../../src/lib/server/bus';
import type { CacheTag } from '../../src/lib/server/cache-tags';
import { askArea, askPost } from '../../src/lib/server/ask/cache-tags';
import { mdArea } from '../../src/lib/server/md/cache-tags';
import { siteConfig, siteWide } from '../../src/lib/server/site/cache-tags';
import { marketModule } from '../../src/lib/server/market/cache-tags';
import { memberCard } from '../../src/lib/server/account/cache-tags';

/** What happened, in order: `commit`, `rollback`, `publish:<tags>`. */
function recorder() {
  const log: string[] = [];
  const publish = async (tags: readonly CacheTag[]): Promise<void> => { log.push(`publish:${tags.join(',')}`); };
  /** A database whose transaction commits when its callback resolves and rolls back when it throws. */
  const db: Transactional<'tx'> = {
    async transaction(fn) {
      try {
        const result = await fn('tx');
        log.push('commit');
        return result;
      } catch (err) {
        log.push('rollback');
        throw err;
      }
    },
  };
  return { log, publish, db };
}

describe('write scope', () => {
  it('publishes the touched tags once, after the transaction committed and the unit ended', async () => {
    const { log, publish, db } = recorder();
    const result = await withWrites(publish, async () => {
      await inTransaction(db, async () => {
        touched(askArea);
        touched(askPost(7), askArea);
        log.push('write');
      });
      log.push('handler done');
      return 42;
    });
    expect(result).toBe(42);
    expect(log).toEqual(['write', 'commit', 'handler done', `publish:ask,ask:post:7`]);
  });

  it('de-duplicates the tags of every write of the unit into one publication', async () => {
    const { log, publish, db } = recorder();
    await withWrites(publish, async () => {
      for (let i = 0; i < 3; i++) await inTransaction(db, async () => { touched(askArea, mdArea); });
      touched(mdArea);
      touched(siteWide, askArea);
    });
    expect(log.filter((l) => l.startsWith('publish'))).toEqual(['publish:ask,md,site']);
  });

  it('publishes nothing of a transaction that rolled back', async () => {
    const { log, publish, db } = recorder();
    await withWrites(publish, async () => {
      await expect(inTransaction(db, async () => {
        touched(askArea);
        throw new Error('refused');
      })).rejects.toThrow('refused');
    });
    expect(log).toEqual(['rollback']);
  });

  it('keeps the committed writes of a unit whose other transaction rolled back', async () => {
    const { log, publish, db } = recorder();
    await withWrites(publish, async () => {
      await inTransaction(db, async () => { touched(mdArea); });
      await inTransaction(db, async () => { touched(askArea); throw new Error('no'); }).catch(() => undefined);
    });
    expect(log).toEqual(['commit', 'rollback', 'publish:md']);
  });

  it('hands a nested transaction\'s tags to its outer one, which drops them when it rolls back', async () => {
    const { log, publish, db } = recorder();
    await withWrites(publish, async () => {
      await expect(inTransaction(db, async () => {
        await inTransaction(db, async () => { touched(marketModule('pomodoro')); });
        throw new Error('outer refused');
      })).rejects.toThrow('outer refused');
    });
    expect(log).toEqual(['commit', 'rollback']);
  });

  it('still publishes what committed when the unit fails afterwards', async () => {
    const { log, publish, db } = recorder();
    await expect(withWrites(publish, async () => {
      await inTransaction(db, async () => { touched(memberCard(3)); });
      throw new Error('reply failed');
    })).rejects.toThrow('reply failed');
    expect(log).toEqual(['commit', 'publish:user:3']);
  });

  it('publishes nothing for a unit that touched nothing', async () => {
    const { log, publish } = recorder();
    await withWrites(publish, async () => undefined);
    expect(log).toEqual([]);
  });

  it('lets the outermost unit publish for a unit inside it', async () => {
    const outer = recorder();
    const inner = recorder();
    await withWrites(outer.publish, async () => {
      await withWrites(inner.publish, async () => { touched(askArea); });
      expect(outer.log).toEqual([]);
      touched(mdArea);
    });
    expect(inner.log).toEqual([]);
    expect(outer.log).toEqual(['publish:ask,md']);
  });

  it('ignores tags touched outside any unit of work', async () => {
    const { log, db } = recorder();
    expect(touched(askArea)).toBe(false);
    await inTransaction(db, async () => { expect(touched(askArea)).toBe(false); });
    expect(log).toEqual(['commit']);
  });

  it('publishes at once what work left running touches after its unit ended', async () => {
    const { log, publish } = recorder();
    let finish: () => void = () => undefined;
    const background = new Promise<void>((resolve) => { finish = resolve; });
    await withWrites(publish, async () => {
      touched(askArea);
      // A job the unit starts and does not wait for (it keeps the unit's async context).
      void background.then(() => { touched(mdArea); });
    });
    expect(log).toEqual(['publish:ask']);
    finish();
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['publish:ask', 'publish:md']);
  });
});

describe('invalidation', () => {
  it('tells every listener of this instance, once per publication, without repeats', async () => {
    const inv = new Invalidation(createMemoryBus());
    const heard: string[] = [];
    inv.listen((tags) => heard.push(tags.join(',')));
    await inv.publish([askArea, askArea, siteWide]);
    await inv.publish([]);
    expect(heard).toEqual(['ask,site']);
  });

  it('defers a runtime holder\'s touch to the end of its unit, and publishes it at once outside one', async () => {
    const inv = new Invalidation(createMemoryBus());
    const heard: string[] = [];
    inv.listen((tags) => heard.push(tags.join(',')));
    await inv.unit(async () => {
      await inv.touched(siteConfig, siteWide);
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual(['site:config,site']);
    await inv.touched(memberCard(9));
    expect(heard).toEqual(['site:config,site', 'user:9']);
  });

  it('does not turn a bus that fails after the commit into the unit\'s error', async () => {
    const bus = { ...createMemoryBus(), publish: async () => { throw new Error('redis down'); } };
    const errors: unknown[] = [];
    const inv = new Invalidation(bus, (err) => errors.push(err));
    const heard: string[] = [];
    inv.listen((tags) => heard.push(tags.join(',')));
    await expect(inv.unit(async () => { touched(askArea); return 'ok'; })).resolves.toBe('ok');
    expect(heard).toEqual(['ask']);
    expect(String(errors[0])).toContain('redis down');
  });
});
