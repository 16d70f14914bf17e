// Operator commands (`npm run atrium -- <command>`) on a runtime: the CLI process's own
// (cli-entry.ts) or, with PGlite while the site runs, the server's (cli-socket.ts). Output goes to
// the caller's sink, so both print the same.
import { AsyncLocalStorage } from 'node:async_hooks';
import { resolve as resolvePath } from 'node:path';
import type { Runtime } from '../lib/server/runtime';
import { ADMIN_USAGE, READ_ONLY, auditCli, extraCommand } from './cli-admin';
import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { user } from '../lib/server/db/schema';
import { ADMIN_GROUP } from '../lib/server/site/seed';
import { createUser, findByAccount, formatMoney } from '../lib/server/account/users';
import { adjustMoney, adjustScore } from '../lib/server/account/ledger';
import { addNotice } from '../lib/server/account/notices';
import { decideInvoice, pendingInvoices } from '../lib/server/account/invoices';
import { decideWithdrawal, pendingWithdrawals } from '../lib/server/market/studio';
import { SITE_MODULES, installReviewed, installedModules, uninstallModule } from '../lib/server/modules/installs';
import { exportBook, importBook } from '../lib/server/md/transfer';
import { addEditor, findBook, listBooks, removeEditor, upsertBook } from '../lib/server/md/books';
import { readFolder, writeFolder } from '../lib/server/md/folder';
import { endOtherSessions } from '../lib/server/auth/sessions';
import { AppError, fieldErrors } from '../lib/server/http';
import { translateAny } from '../lib/i18n';
import { email as emailSchema, password as passwordSchema, username as usernameSchema } from '../lib/shared/validation/account';
import { BOOK_NAME } from '../lib/shared/validation/md';
import { decideDeveloper, developerList, type DeveloperStatus } from '../lib/server/market/developers';
import { decideModule, decideVersion, moduleIdByUid, versionIdOf } from '../lib/server/market/review';
import { CHAT_USAGE, runChatCommand } from './chat-cli';
import { packCommand } from '../lib/server/modules/pack';

/** Where a command writes: the terminal, or the socket of the CLI that asked. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** The caller's working directory, for relative paths. */
  cwd: string;
}

const PROCESS_IO: CliIo = { out: (t) => void stdout.write(t), err: (t) => void stderr.write(t), cwd: process.cwd() };
const sink = new AsyncLocalStorage<CliIo>();
const stdout = { write: (text: string): void => (sink.getStore() ?? PROCESS_IO).out(text) };
const stderr = { write: (text: string): void => (sink.getStore() ?? PROCESS_IO).err(text) };
/** A path the operator typed, relative to where they typed it. */
const pathArg = (p: string): string => resolvePath((sink.getStore() ?? PROCESS_IO).cwd, p);

function notFound(account: string | undefined): number {
  stderr.write(`No member "${account ?? ''}" (give a username, e-mail or mobile).\n`);
  return 1;
}

/** `approve` or `reject` plus the reason words of a review command; null (usage printed) when wrong. */
function reviewDecision(command: string, word: string | undefined, reasonWords: string[]): { approve: boolean; reason: string } | null {
  const reason = reasonWords.join(' ').trim();
  if ((word !== 'approve' && word !== 'reject') || (word === 'reject' && !reason)) {
    stderr.write(`${command} needs approve, or reject with a reason. See: npm run atrium -- help\n`);
    return null;
  }
  return { approve: word === 'approve', reason };
}

/** A service's refusal in English on stderr (exit code 1). */
function refused(err: unknown): number {
  if (!(err instanceof AppError)) throw err;
  stderr.write(`${translateAny('en', err.key, err.options.values)}\n`);
  return 1;
}

export const USAGE = `Usage: npm run atrium -- <command>

  config:list                 every site setting with its value
  config:get <name>           one setting
  config:set <name> <value>   change a setting (pages built from it are refreshed on every instance)

  user:list [page]                              members, 20 a page
  user:create-admin <username> <email> <password>  a new administrator (group rules "*")
  user:disable <account> | user:enable <account>   block or unblock a member (blocked: logged out at once)
  user:money <account> <amount> <memo>          add or take balance, e.g. 12.50 or -3 (logged)
  user:score <account> <points> <memo>          add or take points (logged)

  notice:add <title> <text>                     publish a site notice in the member center
  invoice:list                                  pending invoice requests
  invoice:issue <id> [remark] | invoice:reject <id> <reason>
  withdraw:list                                 pending developer withdrawal requests
  withdraw:pay <id> [remark] | withdraw:reject <id> <reason>   after paying outside Atrium, or refusing (the developer is told)

  md:import <folder> --book <name> [--title <title>]  import a folder of markdown files (front matter title/order; sub-folders = tree)
  md:export <book> <folder>                     write a book back to a folder (the same layout md:import reads)
  md:books                                      every book with its visibility, owner and page count
  md:book <name> [--title <t>] [--title-en <t>] [--description <d>] [--visibility public|members] [--owner <account>]
                                                create a book, or change those settings of an existing one
  md:editor <book> <account> [--remove]         let a member edit a book (or stop them)

  module:list                                   site modules this codebase ships, and which are installed
  module:install <uid> | module:uninstall <uid> e.g. module:install editor (the forum and docs editors need it)

  developer:list [pending|approved|rejected]    developer applications (default pending), ID numbers in full
  developer:review <account> approve|reject [reason]   decide an application (rejecting needs a reason; the member is told)
  module:review <uid> approve|reject [reason]   decide a module submitted for review (approving publishes its versions)
  version:review <uid> <version> approve|reject [reason]   decide a new version of a published module
${ADMIN_USAGE}`;

/** Runs one command on `runtime`, writing to `io`; the exit code. Changes are written to the audit log. */
export async function runCommand(args: string[], runtime: Runtime, io: CliIo = PROCESS_IO): Promise<number> {
  return sink.run(io, async () => {
    const [command = 'help', ...rest] = args;
    if (command === 'help' || command === '--help') {
      stdout.write(USAGE + CHAT_USAGE);
      return args.length ? 0 : 2;
    }
    const before = command === 'config:set' && rest[0] ? (await runtime.site.all()).get(rest[0]) ?? '' : '';
    const code = await dispatch(runtime, command, rest);
    if (code === 0 && !READ_ONLY.has(command)) await auditCli(runtime, command, rest, before).catch((e: unknown) => runtime.log.warn('audit failed', { err: String(e) }));
    return code;
  });
}

async function dispatch(runtime: Runtime, command: string, rest: string[]): Promise<number> {
  {
    const chat = command.startsWith('chat:') ? await runChatCommand(runtime, command, rest, { out: stdout.write, err: stderr.write }) : null;
    if (chat !== null) return chat;
    switch (command) {
      case 'config:list': {
        for (const [name, value] of await runtime.site.all()) stdout.write(`${name}\t${name.endsWith('_secret') ? '(hidden)' : value}\n`);
        return 0;
      }
      case 'config:get': {
        const [name] = rest;
        const all = await runtime.site.all();
        if (!name || !all.has(name)) {
          stderr.write(`Unknown setting "${name ?? ''}". See: npm run atrium -- config:list\n`);
          return 1;
        }
        stdout.write(`${all.get(name)}\n`);
        return 0;
      }
      case 'config:set': {
        const [name, value] = rest;
        if (!name || value === undefined) {
          stderr.write('config:set needs a name and a value.\n');
          return 2;
        }
        if (name === 'head_nav') {
          try { JSON.parse(value); } catch { stderr.write('head_nav must be JSON, e.g. [{"title":{"zh-cn":"社区","en":"Community"},"url":"/ask"}]\n'); return 1; }
        }
        try {
          await runtime.site.set(name, value);
        } catch (err) {
          stderr.write(`${(err as Error).message}. See: npm run atrium -- config:list\n`);
          return 1;
        }
        stdout.write(`${name} = ${value}\n`);
        return 0;
      }
      case 'user:list': {
        const page = Math.max(1, Number(rest[0] ?? 1) || 1);
        const rows = await runtime.db.select().from(user).orderBy(asc(user.id)).limit(20).offset((page - 1) * 20);
        // The header names the columns (tab-separated like the rows, so `cut -f` still works).
        if (rows.length) stdout.write('id\tusername\tnickname\temail\tmobile\tgroup\tstatus\tbalance\tpoints\n');
        for (const r of rows) {
          stdout.write(`${r.id}\t${r.username}\t${r.nickname}\t${r.email || '-'}\t${r.mobile || '-'}\tgroup ${r.groupId}\t${r.status}\t${formatMoney(r.money)}\t${r.score}\n`);
        }
        if (!rows.length) stdout.write('No members on this page.\n');
        return 0;
      }
      case 'user:create-admin': {
        const [username, email, password] = rest;
        const parsed = z.object({ username: usernameSchema, email: emailSchema, password: passwordSchema }).safeParse({ username, email, password });
        if (!parsed.success) {
          for (const [field, message] of Object.entries(fieldErrors(parsed.error, 'en'))) stderr.write(`${field}: ${message}\n`);
          return 2;
        }
        try {
          const row = await createUser(runtime.db, { ...parsed.data, groupId: ADMIN_GROUP });
          stdout.write(`Administrator ${row.username} (id ${row.id}) created.\n`);
          return 0;
        } catch (err) {
          stderr.write(`${err instanceof AppError ? translateAny('en', err.key) : String(err)}\n`);
          return 1;
        }
      }
      case 'user:disable':
      case 'user:enable': {
        const row = await findByAccount(runtime.db, rest[0] ?? '');
        if (!row) return notFound(rest[0]);
        const status = command === 'user:disable' ? 'disable' : 'enable';
        await runtime.db.update(user).set({ status }).where(eq(user.id, row.id));
        if (status === 'disable') await endOtherSessions(runtime.db, row.id, null, runtime.sessions);
        await runtime.sessions.forgetUser(row.id);
        await runtime.pageCache.invalidate([`user:${row.id}`]);
        stdout.write(`${row.username} is now ${status}d.\n`);
        return 0;
      }
      case 'user:money':
      case 'user:score': {
        const [account, amountText, ...memoWords] = rest;
        const row = await findByAccount(runtime.db, account ?? '');
        if (!row) return notFound(account);
        const memo = memoWords.join(' ').trim();
        const amount = Number(amountText);
        const valid = command === 'user:money' ? /^-?\d+(\.\d{1,2})?$/.test(amountText ?? '') && amount !== 0 : Number.isInteger(amount) && amount !== 0;
        if (!valid || !memo) {
          stderr.write(`${command} needs a non-zero ${command === 'user:money' ? 'amount with at most two decimals' : 'whole number of points'} and a memo.\n`);
          return 2;
        }
        try {
          const result = command === 'user:money'
            ? await adjustMoney(runtime.db, row.id, Math.round(amount * 100), memo).then((r) => ({ before: formatMoney(r.before), after: formatMoney(r.after) }))
            : await adjustScore(runtime.db, row.id, amount, memo);
          await runtime.sessions.forgetUser(row.id);
          stdout.write(`${row.username}: ${result.before} → ${result.after}\n`);
          return 0;
        } catch (err) {
          const tooLarge = err instanceof AppError && err.key === 'account.amountTooLarge';
          stderr.write(tooLarge ? 'The amount is too large: the balance or points would pass their limit; nothing was changed.\n' : 'The result would be negative; nothing was changed.\n');
          return 1;
        }
      }
      case 'notice:add': {
        const [title, ...words] = rest;
        const text = words.join(' ').trim();
        if (!title?.trim() || !text) {
          stderr.write('notice:add needs a title and a text.\n');
          return 2;
        }
        stdout.write(`Notice ${await addNotice(runtime.db, title.trim(), text)} published.\n`);
        return 0;
      }
      case 'invoice:list': {
        const rows = await pendingInvoices(runtime.db);
        for (const r of rows) stdout.write(`${r.id}\tmember ${r.userId}\t${formatMoney(r.amount)}\t${r.title}\t${r.taxId || '-'}\t${r.email}\n`);
        if (!rows.length) stdout.write('No pending invoice requests.\n');
        return 0;
      }
      case 'withdraw:list': {
        const rows = await pendingWithdrawals(runtime.db);
        for (const r of rows) stdout.write(`${r.id}\t${r.username || `member ${r.developerId}`}\t${formatMoney(r.amount)}\t${r.account}\n`);
        if (!rows.length) stdout.write('No pending withdrawal requests.\n');
        return 0;
      }
      case 'withdraw:pay':
      case 'withdraw:reject': {
        const id = Number(rest[0]);
        const remark = rest.slice(1).join(' ').trim();
        if (!Number.isInteger(id) || id <= 0 || (command === 'withdraw:reject' && !remark)) {
          stderr.write(`${command} needs a withdrawal id${command === 'withdraw:reject' ? ' and a reason' : ''}.\n`);
          return 2;
        }
        const done = await decideWithdrawal(runtime.db, id, command === 'withdraw:pay' ? 'paid' : 'rejected', remark);
        stdout.write(done ? `Withdrawal ${id} (${formatMoney(done.amount)}) ${command === 'withdraw:pay' ? 'paid' : 'rejected'}.\n` : `No pending withdrawal ${id}.\n`);
        return done ? 0 : 1;
      }
      case 'invoice:issue':
      case 'invoice:reject': {
        const id = Number(rest[0]);
        const remark = rest.slice(1).join(' ').trim();
        if (!Number.isInteger(id) || (command === 'invoice:reject' && !remark)) {
          stderr.write(`${command} needs an invoice id${command === 'invoice:reject' ? ' and a reason' : ''}.\n`);
          return 2;
        }
        const done = await decideInvoice(runtime.db, id, command === 'invoice:issue' ? 'issued' : 'rejected', remark);
        stdout.write(done ? `Invoice ${id} ${command === 'invoice:issue' ? 'issued' : 'rejected'}.\n` : `No pending invoice ${id}.\n`);
        return done ? 0 : 1;
      }
      case 'md:books': {
        for (const b of await listBooks(runtime.db, { id: 0, groupId: 0 }, { archived: true })) {
          stdout.write(`${b.name}\t${b.visibility}${b.archiveTime ? ' archived' : ''}\towner ${b.ownerId || '-'}\t${b.pageCount} pages\t${b.title}\n`);
        }
        return 0;
      }
      case 'md:book': {
        const [name] = rest;
        const opt = (key: string): string | undefined => (rest.includes(`--${key}`) ? rest[rest.indexOf(`--${key}`) + 1] : undefined);
        const visibility = opt('visibility');
        if (!name || !BOOK_NAME.test(name) || (visibility && visibility !== 'public' && visibility !== 'members')) {
          if (name && !name.startsWith('--') && !BOOK_NAME.test(name)) stderr.write(`${translateAny('en', 'md.books.name')}.\n`);
          stderr.write('Usage: md:book <name> [--title <t>] [--title-en <t>] [--description <d>] [--visibility public|members] [--owner <account>]\n');
          return 2;
        }
        let ownerId: number | undefined;
        if (opt('owner')) {
          const owner = await findByAccount(runtime.db, opt('owner')!);
          if (!owner) return notFound(opt('owner'));
          ownerId = owner.id;
        }
        const changed = await upsertBook(runtime.db, name, { title: opt('title'), titleEn: opt('title-en'), description: opt('description'), visibility: visibility as 'public' | 'members' | undefined, ownerId });
        await runtime.pageCache.invalidate(['md']);
        stdout.write(`${changed.created ? 'Created' : 'Updated'} book ${changed.book.name} (${changed.book.visibility}).\n`);
        return 0;
      }
      case 'md:editor': {
        const [bookName, account] = rest;
        const book = bookName ? await findBook(runtime.db, bookName, { id: 0, groupId: 0 }) : null;
        if (!book) {
          stderr.write(`No book "${bookName ?? ''}". See: npm run atrium -- md:books\n`);
          return 1;
        }
        const row = account ? await findByAccount(runtime.db, account) : null;
        if (!row) return notFound(account);
        if (rest.includes('--remove')) await removeEditor(runtime.db, book.id, row.id);
        else await addEditor(runtime.db, book.id, row.id);
        stdout.write(`${row.username} ${rest.includes('--remove') ? 'no longer edits' : 'now edits'} ${book.name}.\n`);
        return 0;
      }
      case 'md:import': {
        const folder = rest.find((a, i) => !a.startsWith('--') && rest[i - 1] !== '--book' && rest[i - 1] !== '--title');
        const book = rest[rest.indexOf('--book') + 1];
        const title = rest.includes('--title') ? rest[rest.indexOf('--title') + 1] : undefined;
        if (!folder || !rest.includes('--book') || !book) {
          stderr.write('Usage: md:import <folder> --book <name> [--title <title>]\n');
          return 2;
        }
        let result: { created: number; updated: number };
        try {
          result = await importBook(runtime.db, book, await readFolder(pathArg(folder)), { title, message: `md:import ${folder}` });
        } catch (err) {
          stderr.write(`${err instanceof AppError ? translateAny('en', err.key) : err instanceof Error ? err.message : String(err)}\n`);
          return 1;
        }
        await runtime.pageCache.invalidate(['md']);
        stdout.write(`Imported into ${book}: ${result.created} new pages, ${result.updated} changed.\n`);
        return 0;
      }
      case 'md:export': {
        const [book, folder] = rest;
        if (!book || !folder) {
          stderr.write('Usage: md:export <book> <folder>\n');
          return 2;
        }
        const exported = await exportBook(runtime.db, book);
        if (!exported) {
          stderr.write(`No book "${book}".\n`);
          return 1;
        }
        try {
          await writeFolder(pathArg(folder), exported);
        } catch (err) {
          stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
          return 1;
        }
        stdout.write(`Wrote ${exported.pages.length} pages of ${book} to ${folder}.\n`);
        return 0;
      }
      case 'module:list': {
        const installed = new Map((await installedModules(runtime.db)).map((m) => [m.uid, m]));
        for (const [uid, info] of Object.entries(SITE_MODULES)) {
          const row = installed.get(uid);
          stdout.write(`${uid}\t${info.version}\t${row ? `installed ${row.version}` : 'not installed'}\n`);
        }
        return 0;
      }
      case 'module:pack': return packCommand(rest, pathArg, { out: stdout.write, err: stderr.write });
      case 'module:install':
      case 'module:uninstall': {
        const [uid] = rest;
        if (!uid || !SITE_MODULES[uid]) {
          stderr.write(`Unknown module "${uid ?? ''}". Site modules: ${Object.keys(SITE_MODULES).join(', ')}\n`);
          return 2;
        }
        // A package changed after review (or made for another Atrium) is refused with the reason.
        const changed = command === 'module:install' ? await installReviewed(runtime, uid).catch((err: unknown) => refused(err)) : await uninstallModule(runtime.db, uid);
        if (typeof changed === 'number') return changed;
        await runtime.pageCache.invalidate(['site', 'ask', 'md', 'modules']);
        stdout.write(command === 'module:install' ? `Installed ${uid} ${String(changed)}.\n` : changed ? `Uninstalled ${uid}.\n` : `${uid} was not installed.\n`);
        return 0;
      }
      case 'developer:list': {
        const status = (rest[0] ?? 'pending') as DeveloperStatus;
        if (!['pending', 'approved', 'rejected'].includes(status)) {
          stderr.write('Usage: developer:list [pending|approved|rejected]\n');
          return 2;
        }
        const { total, list } = await developerList(runtime.db, { status, page: 1 }, 500);
        for (const d of list) {
          stdout.write(`${d.userId}\t${d.username}\t${d.realName}\t${d.idNumber}\t${d.mobile}\t${d.email}\t${d.provinceName} ${d.cityName}\t${new Date(d.updateTime * 1000).toISOString().slice(0, 16)}${d.reason ? `\t${d.reason}` : ''}\n`);
        }
        stdout.write(total ? (total > list.length ? `${list.length} of ${total} shown.\n` : '') : `No ${status} developer applications.\n`);
        return 0;
      }
      case 'developer:review': {
        const [account, word, ...reasonWords] = rest;
        const decision = reviewDecision(command, word, reasonWords);
        if (!decision) return 2;
        const row = await findByAccount(runtime.db, account ?? '');
        if (!row) return notFound(account);
        try {
          await decideDeveloper(runtime.db, { userId: row.id, ...decision, reviewerId: 0 });
        } catch (err) {
          return refused(err);
        }
        stdout.write(`${row.username}: developer application ${decision.approve ? 'approved' : 'rejected'}.\n`);
        return 0;
      }
      case 'module:review':
      case 'version:review': {
        const [uid, ...more] = rest;
        const version = command === 'version:review' ? more.shift() : undefined;
        const decision = reviewDecision(command, more[0], more.slice(1));
        if (!decision || !uid || (command === 'version:review' && !version)) return 2;
        const id = version ? await versionIdOf(runtime.db, uid, version) : await moduleIdByUid(runtime.db, uid);
        if (!id) {
          stderr.write(`No module "${uid}"${version ? ` with version ${version}` : ''}.\n`);
          return 1;
        }
        try {
          if (version) await decideVersion(runtime.db, { versionId: id, ...decision, reviewerId: 0 });
          else await decideModule(runtime.db, { moduleId: id, ...decision, reviewerId: 0 });
        } catch (err) {
          return refused(err);
        }
        await runtime.pageCache.invalidate(['modules']);
        stdout.write(`${uid}${version ? ` ${version}` : ''} ${decision.approve ? 'approved and published' : 'rejected'}.\n`);
        return 0;
      }
      default: {
        const extra = await extraCommand(runtime, command, rest, { out: stdout.write, err: stderr.write, cwd: (sink.getStore() ?? PROCESS_IO).cwd });
        if (extra !== null) return extra;
        stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
      }
    }
  }
}
