import { asc, eq } from 'drizzle-orm';
import { ledgerText } from '../../../lib/server/account/ledger';
import { viewerTimeZone } from '../../../lib/server/site/time-zone';
import { api } from '../../../lib/server/http';
import { requireRule } from '../../../lib/server/auth/guard';
import { userMoneyLog } from '../../../lib/server/db/schema';
import { formatMoney } from '../../../lib/server/account/users';
import { formatDate } from '../../../lib/shared/date';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** A CSV cell: quoted, and never read as a formula by spreadsheet programs. */
function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The member's own balance log as CSV (button rule `account/balance/export`). */
export const GET = api(async (ctx) => {
  const member = await requireRule(ctx, 'account/balance/export');
  const { runtime } = ctx.locals;
  const tz = await viewerTimeZone(ctx.locals);
  const rows = await runtime.db.select().from(userMoneyLog).where(eq(userMoneyLog.userId, member.id)).orderBy(asc(userMoneyLog.id)).limit(100_000);
  const lines = [['time', 'change', 'before', 'after', 'memo'].join(',')];
  for (const r of rows) lines.push([formatDate(r.createTime, undefined, tz), formatMoney(r.money), formatMoney(r.before), formatMoney(r.after), ledgerText(r, ctx.locals.apiLocale).text].map(cell).join(','));
  return new Response(`\uFEFF${lines.join('\r\n')}\r\n`, {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="balance-${member.id}.csv"`,
      'cache-control': 'no-store',
    },
  });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/balance/export',
  GET: { ...MEMBERS },
});
