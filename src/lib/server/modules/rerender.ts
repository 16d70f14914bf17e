// Stored renders made with another set of markdown modules than the site's current one are
// rendered again: in the background after an install, upgrade, rollback or removal (in small
// batches, each followed by a rest three times as long as the batch took, so the walk takes at most
// a quarter of the server's time and readers keep their speed; a busy server makes batches slower
// and so the rests longer), and on read when a page meets one first.
// Rows are claimed before they are rendered, so with several instances each row is rendered once,
// by whichever instance took it.
import { and, asc, eq, gt, inArray, like, ne } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askPost, askReply, mdPage } from '../db/schema';
import type { Runtime } from '../runtime';
import { mentionedMembers, renderBody } from '../ask/render';
import { renderDoc } from '../md/render';
import { currentRenderSet } from './markdown';
import type { RunningModules } from './active';

type Deps = Pick<Runtime, 'db' | 'log' | 'pageCache'> & { modules: RunningModules };

/** Rows re-rendered per batch; the rest after a batch: RERENDER_REST times its duration, at least RERENDER_PAUSE_MS. */
export const RERENDER_BATCH = 25;
export const RERENDER_PAUSE_MS = 25;
export const RERENDER_REST = 3;

/** The rest after a batch that took `ms`. */
export function restAfter(ms: number): number {
  return Math.max(RERENDER_PAUSE_MS, Math.round(ms * RERENDER_REST));
}

type Kind = 'post' | 'reply' | 'doc';

/**
 * Re-renders up to `limit` stale rows of one kind with ids above `after`, in id order. The rows are
 * claimed first (their set marked `~<set>` in one statement, skipping rows another instance holds),
 * then rendered outside any transaction (a module's own store calls need the database meanwhile),
 * then written back unless the content changed since. A row whose module failed stays stale and is
 * not taken again in the same walk. Returns how many rows it took and the last id, or null.
 */
export async function rerenderBatch(db: Db, kind: Kind, after = 0, limit = RERENDER_BATCH): Promise<{ rows: number; last: number } | null> {
  const set = currentRenderSet();
  const claim = `~${set}`.slice(0, 400);
  const table = kind === 'post' ? askPost : kind === 'reply' ? askReply : mdPage;
  const stale = db.select({ id: table.id }).from(table)
    .where(and(gt(table.id, after), ne(table.renderSet, set), ne(table.renderSet, claim))).orderBy(asc(table.id)).limit(limit).for('update', { skipLocked: true });
  const claimed = await db.update(table).set({ renderSet: claim }).where(inArray(table.id, stale)).returning({ id: table.id });
  if (!claimed.length) return null;
  const ids = claimed.map((r) => r.id).sort((a, b) => a - b);
  if (kind === 'doc') {
    const rows = await db.select({ id: mdPage.id, title: mdPage.title, content: mdPage.content, revisionId: mdPage.revisionId }).from(mdPage).where(inArray(mdPage.id, ids));
    for (const r of rows) {
      const out = await renderDoc(r.title, r.content);
      await db.update(mdPage).set({ html: out.html, headings: out.headings, renderSet: out.renderSet })
        .where(and(eq(mdPage.id, r.id), eq(mdPage.revisionId, r.revisionId), eq(mdPage.renderSet, claim)));
    }
  } else {
    const t = kind === 'post' ? askPost : askReply;
    const rows = await db.select({ id: t.id, body: t.body }).from(t).where(inArray(t.id, ids));
    for (const r of rows) {
      const out = await renderBody(r.body, await mentionedMembers(db, r.body), kind);
      await db.update(t).set({ html: out.html, renderSet: out.renderSet }).where(and(eq(t.id, r.id), eq(t.body, r.body), eq(t.renderSet, claim)));
    }
  }
  return { rows: ids.length, last: ids.at(-1)! };
}

/** Claims (`~<set>`) of any other set than the current one go back to stale (''), for the walk to take. */
export async function releaseOldClaims(db: Db): Promise<void> {
  const claim = `~${currentRenderSet()}`.slice(0, 400);
  for (const table of [askPost, askReply, mdPage]) {
    await db.update(table).set({ renderSet: '' }).where(and(like(table.renderSet, '~%'), ne(table.renderSet, claim)));
  }
}

const running = new WeakSet<RunningModules>();
const again = new WeakSet<RunningModules>();
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/**
 * Walks every stored render made with another set, batch by batch, then drops the cached pages.
 * One walk per process at a time; a change during a walk starts another after it.
 */
export function rerenderInBackground(rt: Deps): void {
  if (running.has(rt.modules)) {
    again.add(rt.modules);
    return;
  }
  running.add(rt.modules);
  void (async () => {
    const started = Date.now();
    let total = 0;
    try {
      // Rows an instance claimed for an earlier set and never finished (it stopped) are stale again.
      await releaseOldClaims(rt.db);
      do {
        again.delete(rt.modules);
        for (const kind of ['post', 'reply', 'doc'] as const) {
          for (let after = 0; ;) {
            const t0 = performance.now();
            const batch = await rerenderBatch(rt.db, kind, after);
            if (!batch) break;
            total += batch.rows;
            after = batch.last;
            await pause(restAfter(performance.now() - t0));
          }
        }
      } while (again.has(rt.modules));
      if (total) {
        rt.log.info('module markdown: content re-rendered', { rows: total, ms: Date.now() - started, set: currentRenderSet() || '(none)' });
        await rt.pageCache.invalidate(['ask', 'md']);
      }
    } catch (err) {
      rt.log.error('module markdown: re-render failed', { err: String(err) });
    } finally {
      running.delete(rt.modules);
    }
  })();
}
