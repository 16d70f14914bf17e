// `npm run atrium -- group:* rule:list user:create user:group user:reset-password backup restore`:
// the operator commands added with the admin console (members for support and tests, groups,
// password-reset links, backups).
import { z } from 'zod';
import { AppError, fieldErrors } from '../http';
import { translateAny } from '../../i18n';
import { noMember, refused, registerCommand, stringOption } from '../commands';
import { email as emailSchema, password as passwordSchema, username as usernameSchema } from '../../shared/validation/account';
import { createUser, findByAccount } from '../account/users';
import { CLI_ACTOR } from './audit';
import { resetLinkPath } from './setup';
import { setMemberGroup } from './members';
import { createGroup, deleteGroup, findGroup, listGroups, renameGroup, ruleIdsOf, ruleNames, ruleOutline, setGroupRules } from './groups';
import { siteOrigin } from './origin';
import { backupNow } from './nightly';

const list = (value: string | undefined): string[] => (value ?? '').split(',').map((v) => v.trim()).filter(Boolean);

registerCommand({
  name: 'user:create', usage: '<username> <email> <password> [--group <name or id>]', section: 'console', secret: { args: [2] },
  options: { group: { type: 'string' } },
  summary: 'a member, no e-mail code or captcha',
  async run({ runtime, args: [username, email, password], options, out, err }) {
    const groupName = stringOption(options, 'group');
    const parsed = z.object({ username: usernameSchema, email: emailSchema, password: passwordSchema }).safeParse({ username, email, password });
    if (!parsed.success) {
      for (const [field, message] of Object.entries(fieldErrors(parsed.error, 'en'))) err(`${field}: ${message}\n`);
      return 2;
    }
    const group = groupName ? await findGroup(runtime.db, groupName) : null;
    if (groupName && !group) {
      err(`No group "${groupName}".\n`);
      return 1;
    }
    try {
      const row = await createUser(runtime.db, { ...parsed.data, ...(group ? { groupId: group.id } : {}) });
      out(`Member ${row.username} (id ${row.id}) created${group ? ` in group ${group.name}` : ''}.\n`);
      return 0;
    } catch (e) {
      err(`${e instanceof AppError ? translateAny('en', e.key) : String(e)}\n`);
      return 1;
    }
  },
});

registerCommand({
  name: 'user:group', usage: '<account> <group>', section: 'console',
  summary: 'move a member to a group (name or id)',
  async run(ctx) {
    const { runtime, args: [account, groupName], out, err } = ctx;
    if (!account || !groupName) {
      err('Usage: user:group <account> <group>\n');
      return 2;
    }
    const row = await findByAccount(runtime.db, account);
    if (!row) return noMember(ctx, account);
    const group = await findGroup(runtime.db, groupName);
    if (!group) {
      err(`No group "${groupName}".\n`);
      return 1;
    }
    await setMemberGroup(runtime, row.id, group.id);
    out(`${row.username} is now in group ${group.name}.\n`);
    return 0;
  },
});

registerCommand({
  name: 'group:list', section: 'console', readOnly: true,
  summary: 'groups with their English names, member counts and rules',
  async run({ runtime, out }) {
    out('id\tname\tname_en\tmembers\trules\n');
    for (const g of await listGroups(runtime.db)) out(`${g.id}\t${g.name}\t${g.nameEn || '-'}\t${g.members}\t${await ruleNames(runtime.db, g.rules)}\n`);
    return 0;
  },
});

registerCommand({
  name: 'group:create', usage: '<name> [--title-en <name>] [--rules a,b]', section: 'console',
  options: { 'title-en': { type: 'string' }, rules: { type: 'string' } },
  summary: 'a group holding those rules (names or ids; parents come along)',
  async run(ctx) {
    const { runtime, args: [name], options, out, err } = ctx;
    const nameEn = stringOption(options, 'title-en') ?? '';
    if (!name || name.length > 50 || nameEn.length > 50) {
      err('Usage: group:create <name> [--title-en <name>] [--rules a,b]\n');
      return 2;
    }
    try {
      const group = await createGroup(runtime, 'cli', { name, nameEn, rules: await ruleIdsOf(runtime.db, list(stringOption(options, 'rules'))) });
      out(`Group ${group.name} (id ${group.id}) created with rules: ${(await ruleNames(runtime.db, group.rules)) || '(none)'}.\n`);
      return 0;
    } catch (e) {
      return refused(ctx, e);
    }
  },
});

registerCommand({
  name: 'group:rename', usage: '<group> <name> [--title-en <name>]', section: 'console',
  options: { 'title-en': { type: 'string' } },
  summary: 'rename a group (zh-cn name, English name)',
  async run(ctx) {
    const { runtime, args: [current, name], options, out, err } = ctx;
    const nameEn = stringOption(options, 'title-en');
    if (!current || !name || name.length > 50 || (nameEn ?? '').length > 50) {
      err('Usage: group:rename <group> <name> [--title-en <name>]\n');
      return 2;
    }
    try {
      const group = await findGroup(runtime.db, current);
      if (!group) { err(`No group "${current}".\n`); return 1; }
      const { after } = await renameGroup(runtime, 'cli', group.id, { name, nameEn: nameEn ?? group.nameEn });
      out(`Group ${after.id} is now ${after.name}${after.nameEn ? ` (${after.nameEn})` : ''}.\n`);
      return 0;
    } catch (e) {
      return refused(ctx, e);
    }
  },
});

registerCommand({
  name: 'group:rules', usage: '<group> [--add a,b] [--remove a,b]', section: 'console',
  options: { add: { type: 'string' }, remove: { type: 'string' } },
  summary: 'give a group rules or take them (effective on every instance at once)',
  async run(ctx) {
    const { runtime, args: [name], options, out, err } = ctx;
    const add = stringOption(options, 'add');
    const remove = stringOption(options, 'remove');
    if (!name || (add === undefined && remove === undefined)) {
      err('Usage: group:rules <group> [--add a,b] [--remove a,b]\n');
      return 2;
    }
    const group = await findGroup(runtime.db, name);
    if (!group) { err(`No group "${name}".\n`); return 1; }
    try {
      const adding = await ruleIdsOf(runtime.db, list(add));
      // A rule removed takes its children along (the picker does the same); parents of those kept stay.
      const outline = await ruleOutline(runtime.db);
      const removing = new Set(await ruleIdsOf(runtime.db, list(remove)));
      for (const r of outline) if (removing.has(r.pid)) removing.add(r.id);
      const current = group.rules.trim() === '*' ? [] : group.rules.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
      const next = [...new Set([...current, ...adding])].filter((id) => !removing.has(id));
      const change = await setGroupRules(runtime, 'cli', group.id, next);
      out(`${group.name}: ${(await ruleNames(runtime.db, change.after)) || '(no rules)'}\n`);
      return 0;
    } catch (e) {
      return refused(ctx, e);
    }
  },
});

registerCommand({
  name: 'group:delete', usage: '<group> --move-to <group>', section: 'console',
  options: { 'move-to': { type: 'string' } },
  summary: 'delete a group, moving its members to another one',
  async run(ctx) {
    const { runtime, args: [name], options, out, err } = ctx;
    const to = stringOption(options, 'move-to');
    if (!name || !to) {
      err('Usage: group:delete <group> --move-to <group>\n');
      return 2;
    }
    const [group, target] = await Promise.all([findGroup(runtime.db, name), findGroup(runtime.db, to)]);
    if (!group || !target) { err(`No group "${group ? to : name}".\n`); return 1; }
    try {
      const done = await deleteGroup(runtime, 'cli', group.id, target.id);
      out(`Group ${group.name} deleted; ${done.moved} ${done.moved === 1 ? 'member' : 'members'} moved to ${target.name}.\n`);
      return 0;
    } catch (e) {
      return refused(ctx, e);
    }
  },
});

registerCommand({
  name: 'rule:list', section: 'console', readOnly: true,
  summary: 'the rule tree: id, name, type and title of every rule',
  async run({ runtime, out }) {
    out('id\tname\ttype\ttitle\n');
    for (const r of await ruleOutline(runtime.db)) out(`${r.id}\t${'  '.repeat(r.depth)}${r.name}\t${r.type}\t${r.title}${r.status === 1 ? '' : ' (disabled)'}\n`);
    return 0;
  },
});

registerCommand({
  name: 'user:reset-password', usage: '<account>', section: 'console',
  summary: 'print a one-time password-reset link (valid 24 hours)',
  async run(ctx) {
    const { runtime, args: [account], out } = ctx;
    const row = account ? await findByAccount(runtime.db, account) : null;
    if (!row) return noMember(ctx, account);
    out(`One-time link for ${row.username} (valid 24 hours):\n${siteOrigin(runtime.config)}${await resetLinkPath(runtime, row.id)}\n`);
    return 0;
  },
});

registerCommand({
  name: 'backup', usage: '[file]', section: 'console',
  summary: 'a consistent compressed backup of the database and files\n(default DATA_DIR/backups/atrium-<time>.backup.gz)',
  async run({ runtime, args: [file], path, out }) {
    const done = await backupNow(runtime, file ? path(file) : null, CLI_ACTOR);
    out(`Backup written: ${done.file} (${(done.bytes / 1024).toFixed(1)} KB; ${done.rows} rows in ${done.tables} tables, ${done.files} files).\n`);
    return 0;
  },
});

// Restoring runs before any runtime, in the CLI process (src/server/cli-entry.ts), which writes its
// audit row; here, on a running server's runtime, it is refused.
registerCommand({
  name: 'restore', usage: '<file> [--replace]', section: 'console',
  options: { replace: { type: 'boolean' } },
  summary: 'restore onto a stopped site or an empty database\n(PGlite: --replace keeps the old data as db.before-restore-*)',
  async run({ err }) {
    err('restore runs on a stopped site: stop the server first (with PGlite), or point DATABASE_URL at an empty database.\n');
    return 1;
  },
});
