// The operator commands added with the admin console: members for support and tests, groups,
// password-reset links, backups; and the audit row every changing command writes.
import { resolve as resolvePath } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Runtime } from '../lib/server/runtime';
import { userGroup } from '../lib/server/db/schema';
import { createUser, findByAccount } from '../lib/server/account/users';
import { AppError, fieldErrors } from '../lib/server/http';
import { translateAny } from '../lib/i18n';
import { email as emailSchema, password as passwordSchema, username as usernameSchema } from '../lib/shared/validation/account';
import { CLI_ACTOR, recordAction } from '../lib/server/admin/audit';
import { resetLinkPath } from '../lib/server/admin/setup';
import { setMemberGroup } from '../lib/server/admin/members';
import { siteOrigin } from '../lib/server/admin/origin';
import { backupNow } from '../lib/server/admin/nightly';

interface Io { out(text: string): void; err(text: string): void; cwd: string }

export const ADMIN_USAGE = `
  user:create <username> <email> <password> [--group <name or id>]   a member, no e-mail code or captcha
  user:group <account> <group>                  move a member to a group (name or id)
  user:reset-password <account>                 print a one-time password-reset link (valid 24 hours)
  backup [file]                                 a consistent compressed backup of the database and files
                                                (default DATA_DIR/backups/atrium-<time>.backup.gz)
  restore <file> [--replace]                    restore onto a stopped site or an empty database
                                                (PGlite: --replace keeps the old data as db.before-restore-*)

With the embedded database (PGlite) and the site running, commands run inside the server through
DATA_DIR/atrium.sock; the output is the same.
`;

/** Commands that change nothing (no audit row). */
export const READ_ONLY = new Set(['config:list', 'config:get', 'user:list', 'invoice:list', 'withdraw:list', 'md:books', 'md:export', 'module:list', 'developer:list', 'help', '--help', 'audit:list', 'chat:list', 'chat:usage']);

const SECRET_ARGS: Record<string, number> = { 'user:create': 2, 'user:create-admin': 2 };
/** Flags whose value is a secret (a model's API key): masked in the audit row like passwords. */
const SECRET_FLAGS = new Set(['--key']);

/** One audit row for a CLI command that changed something (passwords masked). */
export async function auditCli(runtime: Runtime, command: string, args: string[], before: string): Promise<void> {
  const shown = args.map((a, i) => (SECRET_ARGS[command] === i || (i > 0 && SECRET_FLAGS.has(args[i - 1]!)) ? '********' : a));
  const after = command === 'config:set' ? args[1] ?? '' : shown.join(' ');
  await recordAction(runtime.db, CLI_ACTOR, command, shown[0] ?? '', before, after);
}

async function findGroup(runtime: Runtime, nameOrId: string): Promise<{ id: number; name: string } | null> {
  const byId = /^\d{1,9}$/.test(nameOrId) ? eq(userGroup.id, Number(nameOrId)) : sql`lower(${userGroup.name}) = lower(${nameOrId})`;
  const [row] = await runtime.db.select({ id: userGroup.id, name: userGroup.name }).from(userGroup).where(byId).limit(1);
  return row ?? null;
}

/** Runs a command of this file; null when the name is not one of them. */
export async function extraCommand(runtime: Runtime, command: string, rest: string[], io: Io): Promise<number | null> {
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
      const group = groupName ? await findGroup(runtime, groupName) : null;
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
      const group = await findGroup(runtime, groupName);
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

