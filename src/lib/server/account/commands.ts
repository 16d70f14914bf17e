// `npm run atrium -- user:* notice:* invoice:*`: members, their balance and points, notices, invoices.
import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { user } from '../db/schema';
import { AppError, fieldErrors } from '../http';
import { translateAny } from '../../i18n';
import { noMember, registerCommand } from '../commands';
import { email as emailSchema, password as passwordSchema, username as usernameSchema } from '../../shared/validation/account';
import { ADMIN_GROUP } from '../site/seed';
import { endOtherSessions } from '../auth/sessions';
import { createUser, findByAccount, formatMoney } from './users';
import { adjustMoney, adjustScore } from './ledger';
import { addNotice } from './notices';
import { decideInvoice, pendingInvoices } from './invoices';
import { memberCard } from './cache-tags';

registerCommand({
  name: 'user:list', usage: '[page]', section: 'user', readOnly: true,
  summary: 'members, 20 a page',
  async run({ runtime, args, out }) {
    const page = Math.max(1, Number(args[0] ?? 1) || 1);
    const rows = await runtime.db.select().from(user).orderBy(asc(user.id)).limit(20).offset((page - 1) * 20);
    // The header names the columns (tab-separated like the rows, so `cut -f` still works).
    if (rows.length) out('id\tusername\tnickname\temail\tmobile\tgroup\tstatus\tbalance\tpoints\n');
    for (const r of rows) {
      out(`${r.id}\t${r.username}\t${r.nickname}\t${r.email || '-'}\t${r.mobile || '-'}\tgroup ${r.groupId}\t${r.status}\t${formatMoney(r.money)}\t${r.score}\n`);
    }
    if (!rows.length) out('No members on this page.\n');
    return 0;
  },
});

registerCommand({
  name: 'user:create-admin', usage: '<username> <email> <password>', section: 'user', secret: { args: [2] },
  summary: 'a new administrator (group rules "*")',
  async run({ runtime, args: [username, email, password], out, err }) {
    const parsed = z.object({ username: usernameSchema, email: emailSchema, password: passwordSchema }).safeParse({ username, email, password });
    if (!parsed.success) {
      for (const [field, message] of Object.entries(fieldErrors(parsed.error, 'en'))) err(`${field}: ${message}\n`);
      return 2;
    }
    try {
      const row = await createUser(runtime.db, { ...parsed.data, groupId: ADMIN_GROUP });
      out(`Administrator ${row.username} (id ${row.id}) created.\n`);
      return 0;
    } catch (e) {
      err(`${e instanceof AppError ? translateAny('en', e.key) : String(e)}\n`);
      return 1;
    }
  },
});

for (const status of ['disable', 'enable'] as const) {
  registerCommand({
    name: `user:${status}`, usage: '<account>', section: 'user',
    summary: status === 'disable' ? 'block a member (logged out at once)' : 'unblock a member',
    async run(ctx) {
      const { runtime, args, out } = ctx;
      const row = await findByAccount(runtime.db, args[0] ?? '');
      if (!row) return noMember(ctx, args[0]);
      await runtime.db.update(user).set({ status }).where(eq(user.id, row.id));
      if (status === 'disable') await endOtherSessions(runtime.db, row.id, null, runtime.sessions);
      await runtime.sessions.forgetUser(row.id);
      await runtime.invalidation.touched(memberCard(row.id));
      out(`${row.username} is now ${status}d.\n`);
      return 0;
    },
  });
}

for (const kind of ['money', 'score'] as const) {
  registerCommand({
    name: `user:${kind}`, usage: kind === 'money' ? '<account> <amount> <memo>' : '<account> <points> <memo>', section: 'user',
    summary: kind === 'money' ? 'add or take balance, e.g. 12.50 or -3 (logged)' : 'add or take points (logged)',
    async run(ctx) {
      const { runtime, name, args: [account, amountText, ...memoWords], out, err } = ctx;
      const row = await findByAccount(runtime.db, account ?? '');
      if (!row) return noMember(ctx, account);
      const memo = memoWords.join(' ').trim();
      const amount = Number(amountText);
      const valid = kind === 'money' ? /^-?\d+(\.\d{1,2})?$/.test(amountText ?? '') && amount !== 0 : Number.isInteger(amount) && amount !== 0;
      if (!valid || !memo) {
        err(`${name} needs a non-zero ${kind === 'money' ? 'amount with at most two decimals' : 'whole number of points'} and a memo.\n`);
        return 2;
      }
      try {
        const result = kind === 'money'
          ? await adjustMoney(runtime.db, row.id, Math.round(amount * 100), memo).then((r) => ({ before: formatMoney(r.before), after: formatMoney(r.after) }))
          : await adjustScore(runtime.db, row.id, amount, memo);
        await runtime.sessions.forgetUser(row.id);
        out(`${row.username}: ${result.before} → ${result.after}\n`);
        return 0;
      } catch (e) {
        const tooLarge = e instanceof AppError && e.key === 'account.amountTooLarge';
        err(tooLarge ? 'The amount is too large: the balance or points would pass their limit; nothing was changed.\n' : 'The result would be negative; nothing was changed.\n');
        return 1;
      }
    },
  });
}

registerCommand({
  name: 'notice:add', usage: '<title> <text>', section: 'records',
  summary: 'publish a site notice in the member center',
  async run({ runtime, args: [title, ...words], out, err }) {
    const text = words.join(' ').trim();
    if (!title?.trim() || !text) {
      err('notice:add needs a title and a text.\n');
      return 2;
    }
    out(`Notice ${await addNotice(runtime.db, title.trim(), text)} published.\n`);
    return 0;
  },
});

registerCommand({
  name: 'invoice:list', section: 'records', readOnly: true,
  summary: 'pending invoice requests',
  async run({ runtime, out }) {
    const rows = await pendingInvoices(runtime.db);
    for (const r of rows) out(`${r.id}\tmember ${r.userId}\t${formatMoney(r.amount)}\t${r.title}\t${r.taxId || '-'}\t${r.email}\n`);
    if (!rows.length) out('No pending invoice requests.\n');
    return 0;
  },
});

for (const decision of ['issue', 'reject'] as const) {
  registerCommand({
    name: `invoice:${decision}`, usage: decision === 'issue' ? '<id> [remark]' : '<id> <reason>', section: 'records',
    summary: decision === 'issue' ? 'mark an invoice request issued' : 'refuse an invoice request (the member is told)',
    async run({ runtime, name, args, out, err }) {
      const id = Number(args[0]);
      const remark = args.slice(1).join(' ').trim();
      if (!Number.isInteger(id) || (decision === 'reject' && !remark)) {
        err(`${name} needs an invoice id${decision === 'reject' ? ' and a reason' : ''}.\n`);
        return 2;
      }
      const done = await decideInvoice(runtime.db, id, decision === 'issue' ? 'issued' : 'rejected', remark);
      out(done ? `Invoice ${id} ${decision === 'issue' ? 'issued' : 'rejected'}.\n` : `No pending invoice ${id}.\n`);
      return done ? 0 : 1;
    },
  });
}
