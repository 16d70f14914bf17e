// The operator commands added with the admin console: members for support and tests, groups,
// password-reset links, backups; and the audit row every changing command writes.
import { resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import type { Runtime } from '../lib/server/runtime';
import { createUser, findByAccount } from '../lib/server/account/users';
import { AppError, fieldErrors } from '../lib/server/http';
import { translateAny } from '../lib/i18n';
import { email as emailSchema, password as passwordSchema, username as usernameSchema } from '../lib/shared/validation/account';
import { CLI_ACTOR, recordAction } from '../lib/server/admin/audit';
import { resetLinkPath } from '../lib/server/admin/setup';
import { setMemberGroup } from '../lib/server/admin/members';
import { createGroup, deleteGroup, findGroup, listGroups, renameGroup, ruleIdsOf, ruleNames, ruleOutline, setGroupRules } from '../lib/server/admin/groups';
import { siteOrigin } from '../lib/server/admin/origin';
import { backupNow } from '../lib/server/admin/nightly';
import { RULES_USAGE, ruleCommand } from './cli-rules';

interface Io { out(text: string): void; err(text: string): void; cwd: string }

export const ADMIN_USAGE = `
  user:create <username> <email> <password> [--group <name or id>]   a member, no e-mail code or captcha
  user:group <account> <group>                  move a member to a group (name or id)
  group:list                                    groups with their English names, member counts and rules
  group:create <name> [--title-en <name>] [--rules a,b]   a group holding those rules (names or ids; parents come along)
  group:rename <group> <name> [--title-en <name>]   rename a group (zh-cn name, English name)
  group:rules <group> [--add a,b] [--remove a,b]   give a group rules or take them (effective on every instance at once)
  group:delete <group> --move-to <group>        delete a group, moving its members to another one
  rule:list                                     the rule tree: id, name, type and title of every rule
${RULES_USAGE.slice(1, -1)}
  user:reset-password <account>                 print a one-time password-reset link (valid 24 hours)
  backup [file]                                 a consistent compressed backup of the database and files
                                                (default DATA_DIR/backups/atrium-<time>.backup.gz)
  restore <file> [--replace]                    restore onto a stopped site or an empty database
                                                (PGlite: --replace keeps the old data as db.before-restore-*)

With the embedded database (PGlite) and the site running, commands run inside the server through
DATA_DIR/atrium.sock; the output is the same.
`;

/** Commands that change nothing (no audit row). */
export const READ_ONLY = new Set(['group:list', 'rule:list', 'config:list', 'config:get', 'user:list', 'invoice:list', 'withdraw:list', 'md:books', 'md:export', 'module:list', 'developer:list', 'help', '--help', 'audit:list', 'chat:list', 'chat:usage']);

const SECRET_ARGS: Record<string, number> = { 'user:create': 2, 'user:create-admin': 2 };
/** Flags whose value is a secret (a model's API key): masked in the audit row like passwords. */
const SECRET_FLAGS = new Set(['--key']);

/** One audit row for a CLI command that changed something (passwords masked). */
export async function auditCli(runtime: Runtime, command: string, args: string[], before: string): Promise<void> {
  const shown = args.map((a, i) => (SECRET_ARGS[command] === i || (i > 0 && SECRET_FLAGS.has(args[i - 1]!)) ? '********' : a));
  const after = command === 'config:set' ? args[1] ?? '' : shown.join(' ');
  await recordAction(runtime.db, CLI_ACTOR, command, shown[0] ?? '', before, after);
}

/** `--flag value` out of the arguments: the value (null when absent) and the rest. */
function option(args: string[], flag: string): { value: string | null; rest: string[]; missing: boolean } {
  const at = args.indexOf(flag);
  if (at < 0) return { value: null, rest: args, missing: false };
  const value = args[at + 1];
  return { value: value ?? null, rest: [...args.slice(0, at), ...args.slice(at + 2)], missing: value === undefined || value.startsWith('--') };
}

const list = (value: string | null): string[] => (value ?? '').split(',').map((v) => v.trim()).filter(Boolean);

/** Runs a group or rule command; null when the name is not one of them. */
async function groupCommand(runtime: Runtime, command: string, rest: string[], io: Io): Promise<number | null> {
  const fail = (err: unknown): number => {
    if (!(err instanceof AppError)) throw err;
    io.err(`${translateAny('en', err.key, err.options.values)}\n`);
    return 1;
  };
  switch (command) {
    case 'group:list': {
      io.out('id\tname\tname_en\tmembers\trules\n');
      for (const g of await listGroups(runtime.db)) io.out(`${g.id}\t${g.name}\t${g.nameEn || '-'}\t${g.members}\t${await ruleNames(runtime.db, g.rules)}\n`);
      return 0;
    }
    case 'rule:list': {
      io.out('id\tname\ttype\ttitle\n');
      for (const r of await ruleOutline(runtime.db)) io.out(`${r.id}\t${'  '.repeat(r.depth)}${r.name}\t${r.type}\t${r.title}${r.status === 1 ? '' : ' (disabled)'}\n`);
      return 0;
    }
    case 'group:create':
    case 'group:rename': {
      const en = option(rest, '--title-en');
      const rules = option(en.rest, '--rules');
      const positional = rules.rest;
      const [first, second] = positional;
      const name = command === 'group:create' ? first : second;
      const valid = name && name.length <= 50 && !en.missing && !rules.missing && (en.value ?? '').length <= 50 && (command === 'group:create' || (first && rules.value === null));
      if (!valid) {
        io.err(command === 'group:create' ? 'Usage: group:create <name> [--title-en <name>] [--rules a,b]\n' : 'Usage: group:rename <group> <name> [--title-en <name>]\n');
        return 2;
      }
      try {
        if (command === 'group:create') {
          const group = await createGroup(runtime, 'cli', { name, nameEn: en.value ?? '', rules: await ruleIdsOf(runtime.db, list(rules.value)) });
          io.out(`Group ${group.name} (id ${group.id}) created with rules: ${(await ruleNames(runtime.db, group.rules)) || '(none)'}.\n`);
        } else {
          const group = await findGroup(runtime.db, first!);
          if (!group) { io.err(`No group "${first}".\n`); return 1; }
          const { after } = await renameGroup(runtime, 'cli', group.id, { name, nameEn: en.value ?? group.nameEn });
          io.out(`Group ${after.id} is now ${after.name}${after.nameEn ? ` (${after.nameEn})` : ''}.\n`);
        }
        return 0;
      } catch (err) {
        return fail(err);
      }
    }
    case 'group:rules': {
      const add = option(rest, '--add');
      const remove = option(add.rest, '--remove');
      const [name] = remove.rest;
      if (!name || add.missing || remove.missing || (add.value === null && remove.value === null)) {
        io.err('Usage: group:rules <group> [--add a,b] [--remove a,b]\n');
        return 2;
      }
      const group = await findGroup(runtime.db, name);
      if (!group) { io.err(`No group "${name}".\n`); return 1; }
      try {
        const adding = await ruleIdsOf(runtime.db, list(add.value));
        // A rule removed takes its children along (the picker does the same); parents of those kept stay.
        const outline = await ruleOutline(runtime.db);
        const removing = new Set(await ruleIdsOf(runtime.db, list(remove.value)));
        for (const r of outline) if (removing.has(r.pid)) removing.add(r.id);
        const current = group.rules.trim() === '*' ? [] : group.rules.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
        const next = [...new Set([...current, ...adding])].filter((id) => !removing.has(id));
        const change = await setGroupRules(runtime, 'cli', group.id, next);
        io.out(`${group.name}: ${(await ruleNames(runtime.db, change.after)) || '(no rules)'}\n`);
        return 0;
      } catch (err) {
        return fail(err);
      }
    }
    case 'group:delete': {
      const to = option(rest, '--move-to');
      const [name] = to.rest;
      if (!name || !to.value || to.missing) {
        io.err('Usage: group:delete <group> --move-to <group>\n');
        return 2;
      }
      const [group, target] = await Promise.all([findGroup(runtime.db, name), findGroup(runtime.db, to.value)]);
      if (!group || !target) { io.err(`No group "${group ? to.value : name}".\n`); return 1; }
      try {
        const done = await deleteGroup(runtime, 'cli', group.id, target.id);
        io.out(`Group ${group.name} deleted; ${done.moved} ${done.moved === 1 ? 'member' : 'members'} moved to ${target.name}.\n`);
        return 0;
      } catch (err) {
        return fail(err);
      }
    }
    default:
      return null;
  }
}

/** Runs a command of this file; null when the name is not one of them. */
export async function extraCommand(runtime: Runtime, command: string, rest: string[], io: Io): Promise<number | null> {
  const group = await groupCommand(runtime, command, rest, io);
  if (group !== null) return group;
  const rule = await ruleCommand(runtime, command, rest, io);
  if (rule !== null) return rule;
  switch (command) {
    case 'user:create': {
      const at = rest.indexOf('--group');
      const groupName = at >= 0 ? rest[at + 1] : undefined;
      const positional = at >= 0 ? [...rest.slice(0, at), ...rest.slice(at + 2)] : rest;
      const [username, email, password] = positional;
      const parsed = z.object({ username: usernameSchema, email: emailSchema, password: passwordSchema }).safeParse({ username, email, password });
      if (!parsed.success || (at >= 0 && !groupName)) {
        if (!parsed.success) for (const [field, message] of Object.entries(fieldErrors(parsed.error, 'en'))) io.err(`${field}: ${message}\n`);
        else io.err('--group needs a group name or id.\n');
        return 2;
      }
      const group = groupName ? await findGroup(runtime.db, groupName) : null;
      if (groupName && !group) {
        io.err(`No group "${groupName}".\n`);
        return 1;
      }
      try {
        const row = await createUser(runtime.db, { ...parsed.data, ...(group ? { groupId: group.id } : {}) });
        io.out(`Member ${row.username} (id ${row.id}) created${group ? ` in group ${group.name}` : ''}.\n`);
        return 0;
      } catch (err) {
        io.err(`${err instanceof AppError ? translateAny('en', err.key) : String(err)}\n`);
        return 1;
      }
    }
    case 'user:group': {
      const [account, groupName] = rest;
      if (!account || !groupName) {
        io.err('Usage: user:group <account> <group>\n');
        return 2;
      }
      const row = await findByAccount(runtime.db, account);
      if (!row) {
        io.err(`No member "${account}" (give a username, e-mail or mobile).\n`);
        return 1;
      }
      const group = await findGroup(runtime.db, groupName);
      if (!group) {
        io.err(`No group "${groupName}".\n`);
        return 1;
      }
      await setMemberGroup(runtime, row.id, group.id);
      io.out(`${row.username} is now in group ${group.name}.\n`);
      return 0;
    }
    case 'user:reset-password': {
      const row = rest[0] ? await findByAccount(runtime.db, rest[0]) : null;
      if (!row) {
        io.err(`No member "${rest[0] ?? ''}" (give a username, e-mail or mobile).\n`);
        return 1;
      }
      io.out(`One-time link for ${row.username} (valid 24 hours):\n${siteOrigin(runtime.config)}${await resetLinkPath(runtime, row.id)}\n`);
      return 0;
    }
    case 'backup': {
      const done = await backupNow(runtime, rest[0] ? resolvePath(io.cwd, rest[0]) : null, CLI_ACTOR);
      io.out(`Backup written: ${done.file} (${(done.bytes / 1024).toFixed(1)} KB; ${done.rows} rows in ${done.tables} tables, ${done.files} files).\n`);
      return 0;
    }
    case 'restore':
      io.err('restore runs on a stopped site: stop the server first (with PGlite), or point DATABASE_URL at an empty database.\n');
      return 1;
    default:
      return null;
  }
}

