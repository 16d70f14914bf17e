// `npm run atrium -- withdraw:* developer:* module:review version:review`: developer payouts and the
// market's review decisions.
import { noMember, refused, registerCommand, type CommandContext } from '../commands';
import { findByAccount, formatMoney } from '../account/users';
import { decideWithdrawal, pendingWithdrawals } from './studio';
import { decideDeveloper, developerList, type DeveloperStatus } from './developers';
import { decideModule, decideVersion, moduleIdByUid, versionIdOf } from './review';

/** `approve` or `reject` plus the reason words of a review command; null (usage printed) when wrong. */
function reviewDecision(ctx: CommandContext, word: string | undefined, reasonWords: string[]): { approve: boolean; reason: string } | null {
  const reason = reasonWords.join(' ').trim();
  if ((word !== 'approve' && word !== 'reject') || (word === 'reject' && !reason)) {
    ctx.err(`${ctx.name} needs approve, or reject with a reason. See: npm run atrium -- help\n`);
    return null;
  }
  return { approve: word === 'approve', reason };
}

registerCommand({
  name: 'withdraw:list', section: 'records', readOnly: true,
  summary: 'pending developer withdrawal requests',
  async run({ runtime, out }) {
    const rows = await pendingWithdrawals(runtime.db);
    for (const r of rows) out(`${r.id}\t${r.username || `member ${r.developerId}`}\t${formatMoney(r.amount)}\t${r.account}\n`);
    if (!rows.length) out('No pending withdrawal requests.\n');
    return 0;
  },
});

for (const decision of ['pay', 'reject'] as const) {
  registerCommand({
    name: `withdraw:${decision}`, usage: decision === 'pay' ? '<id> [remark]' : '<id> <reason>', section: 'records',
    summary: decision === 'pay' ? 'after paying outside Atrium' : 'refuse a withdrawal (the developer is told)',
    async run({ runtime, name, args, out, err }) {
      const id = Number(args[0]);
      const remark = args.slice(1).join(' ').trim();
      if (!Number.isInteger(id) || id <= 0 || (decision === 'reject' && !remark)) {
        err(`${name} needs a withdrawal id${decision === 'reject' ? ' and a reason' : ''}.\n`);
        return 2;
      }
      const done = await decideWithdrawal(runtime.db, id, decision === 'pay' ? 'paid' : 'rejected', remark);
      out(done ? `Withdrawal ${id} (${formatMoney(done.amount)}) ${decision === 'pay' ? 'paid' : 'rejected'}.\n` : `No pending withdrawal ${id}.\n`);
      return done ? 0 : 1;
    },
  });
}

registerCommand({
  name: 'developer:list', usage: '[pending|approved|rejected]', section: 'market', readOnly: true,
  summary: 'developer applications (default pending), ID numbers in full',
  async run({ runtime, args, out, err }) {
    const status = (args[0] ?? 'pending') as DeveloperStatus;
    if (!['pending', 'approved', 'rejected'].includes(status)) {
      err('Usage: developer:list [pending|approved|rejected]\n');
      return 2;
    }
    const { total, list } = await developerList(runtime.db, { status, page: 1 }, 500);
    for (const d of list) {
      out(`${d.userId}\t${d.username}\t${d.realName}\t${d.idNumber}\t${d.mobile}\t${d.email}\t${d.provinceName} ${d.cityName}\t${new Date(d.updateTime * 1000).toISOString().slice(0, 16)}${d.reason ? `\t${d.reason}` : ''}\n`);
    }
    out(total ? (total > list.length ? `${list.length} of ${total} shown.\n` : '') : `No ${status} developer applications.\n`);
    return 0;
  },
});

registerCommand({
  name: 'developer:review', usage: '<account> approve|reject [reason]', section: 'market',
  summary: 'decide an application (rejecting needs a reason; the member is told)',
  async run(ctx) {
    const { runtime, args: [account, word, ...reasonWords], out } = ctx;
    const decision = reviewDecision(ctx, word, reasonWords);
    if (!decision) return 2;
    const row = await findByAccount(runtime.db, account ?? '');
    if (!row) return noMember(ctx, account);
    try {
      await decideDeveloper(runtime.db, { userId: row.id, ...decision, reviewerId: 0 });
    } catch (err) {
      return refused(ctx, err);
    }
    out(`${row.username}: developer application ${decision.approve ? 'approved' : 'rejected'}.\n`);
    return 0;
  },
});

for (const kind of ['module', 'version'] as const) {
  registerCommand({
    name: `${kind}:review`, usage: kind === 'module' ? '<uid> approve|reject [reason]' : '<uid> <version> approve|reject [reason]', section: 'market',
    summary: kind === 'module' ? 'decide a module submitted for review (approving publishes its versions)' : 'decide a new version of a published module',
    async run(ctx) {
      const { runtime, args: [uid, ...more], out, err } = ctx;
      const version = kind === 'version' ? more.shift() : undefined;
      const decision = reviewDecision(ctx, more[0], more.slice(1));
      if (!decision || !uid || (kind === 'version' && !version)) return 2;
      const id = version ? await versionIdOf(runtime.db, uid, version) : await moduleIdByUid(runtime.db, uid);
      if (!id) {
        err(`No module "${uid}"${version ? ` with version ${version}` : ''}.\n`);
        return 1;
      }
      try {
        if (version) await decideVersion(runtime.db, { versionId: id, ...decision, reviewerId: 0 });
        else await decideModule(runtime.db, { moduleId: id, ...decision, reviewerId: 0 });
      } catch (e) {
        return refused(ctx, e);
      }
      out(`${uid}${version ? ` ${version}` : ''} ${decision.approve ? 'approved and published' : 'rejected'}.\n`);
      return 0;
    },
  });
}
