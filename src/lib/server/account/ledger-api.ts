import type { APIContext } from 'astro';
import { z } from 'zod';
import { ok, readInput } from '../http';
import { requireUser } from '../auth/guard';
import { ledgerPage, ledgerText } from './ledger';
import { formatMoney } from './users';

export const PageInput = z.object({ page: z.coerce.number().int().min(1).max(100000).default(1), limit: z.coerce.number().int().min(1).max(100).default(15) });

/** `GET /api/account/balance` and `/api/account/integral`: the member's own log, newest first, memos in the caller's language. */
export async function ledgerReply(ctx: APIContext, kind: 'money' | 'score'): Promise<Response> {
  const member = requireUser(ctx);
  const { page, limit } = await readInput(ctx, PageInput);
  const { rows, total } = await ledgerPage(ctx.locals.runtime.db, kind, member.id, page, limit);
  const list = rows.map((r) => {
    const amount = 'money' in r ? r.money : r.score;
    const show = (v: number): string | number => (kind === 'money' ? formatMoney(v) : v);
    // `memo` in the caller's language; `memo_key` the message key ('' for an operator's own words)
    // and `memo_raw` the text stored with the entry, for clients that match on them.
    return { id: r.id, [kind]: show(amount), before: show(r.before), after: show(r.after), memo: ledgerText(r, ctx.locals.apiLocale).text, memo_key: r.memoKey, memo_raw: r.memo, create_time: r.createTime };
  });
  return ok({ list, total });
}
