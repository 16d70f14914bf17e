import type { APIContext } from 'astro';
import { z } from 'zod';
import { ok, readInput } from '../http';
import { requireUser } from '../auth/guard';
import { ledgerPage } from './ledger';
import { formatMoney } from './users';

export const PageInput = z.object({ page: z.coerce.number().int().min(1).max(100000).default(1), limit: z.coerce.number().int().min(1).max(100).default(15) });

/** `GET /api/account/balance` and `/api/account/integral`: the member's own log, newest first. */
export async function ledgerReply(ctx: APIContext, kind: 'money' | 'score'): Promise<Response> {
  const member = requireUser(ctx);
  const { page, limit } = await readInput(ctx, PageInput);
  const { rows, total } = await ledgerPage(ctx.locals.runtime.db, kind, member.id, page, limit);
  const list = rows.map((r) => {
    const amount = 'money' in r ? r.money : r.score;
    const show = (v: number): string | number => (kind === 'money' ? formatMoney(v) : v);
    return { id: r.id, [kind]: show(amount), before: show(r.before), after: show(r.after), memo: r.memo, create_time: r.createTime };
  });
  return ok({ list, total });
}
