// `npm run atrium -- md:*`: docs books from and to folders of markdown, their settings and editors.
import { AppError } from '../http';
import { translateAny } from '../../i18n';
import { noMember, registerCommand, stringOption } from '../commands';
import { BOOK_NAME } from '../../shared/validation/md';
import { findByAccount } from '../account/users';
import { exportBook, importBook } from './transfer';
import { addEditor, findBook, listBooks, removeEditor, upsertBook } from './books';
import { readFolder, writeFolder } from './folder';

registerCommand({
  name: 'md:import', usage: '<folder> --book <name> [--title <title>]', section: 'md',
  options: { book: { type: 'string' }, title: { type: 'string' } },
  summary: 'import a folder of markdown files (front matter title/order; sub-folders = tree)',
  async run({ runtime, args: [folder], options, path, out, err }) {
    const book = stringOption(options, 'book');
    if (!folder || !book) {
      err('Usage: md:import <folder> --book <name> [--title <title>]\n');
      return 2;
    }
    let result: { created: number; updated: number };
    try {
      result = await importBook(runtime.db, book, await readFolder(path(folder)), { title: stringOption(options, 'title'), message: `md:import ${folder}` });
    } catch (e) {
      err(`${e instanceof AppError ? translateAny('en', e.key) : e instanceof Error ? e.message : String(e)}\n`);
      return 1;
    }
    out(`Imported into ${book}: ${result.created} new pages, ${result.updated} changed.\n`);
    return 0;
  },
});

registerCommand({
  name: 'md:export', usage: '<book> <folder>', section: 'md', readOnly: true,
  summary: 'write a book back to a folder (the same layout md:import reads)',
  async run({ runtime, args: [book, folder], path, out, err }) {
    if (!book || !folder) {
      err('Usage: md:export <book> <folder>\n');
      return 2;
    }
    const exported = await exportBook(runtime.db, book);
    if (!exported) {
      err(`No book "${book}".\n`);
      return 1;
    }
    try {
      await writeFolder(path(folder), exported);
    } catch (e) {
      err(`${e instanceof Error ? e.message : String(e)}\n`);
      return 1;
    }
    out(`Wrote ${exported.pages.length} pages of ${book} to ${folder}.\n`);
    return 0;
  },
});

registerCommand({
  name: 'md:books', section: 'md', readOnly: true,
  summary: 'every book with its visibility, owner and page count',
  async run({ runtime, out }) {
    for (const b of await listBooks(runtime.db, { id: 0, groupId: 0 }, { archived: true })) {
      out(`${b.name}\t${b.visibility}${b.archiveTime ? ' archived' : ''}\towner ${b.ownerId || '-'}\t${b.pageCount} pages\t${b.title}\n`);
    }
    return 0;
  },
});

const BOOK_USAGE = '<name> [--title <t>] [--title-en <t>] [--description <d>] [--visibility public|members] [--owner <account>]';
registerCommand({
  name: 'md:book', usage: BOOK_USAGE, section: 'md',
  options: { title: { type: 'string' }, 'title-en': { type: 'string' }, description: { type: 'string' }, visibility: { type: 'string' }, owner: { type: 'string' } },
  summary: 'create a book, or change those settings of an existing one',
  async run(ctx) {
    const { runtime, args: [name], options, out, err } = ctx;
    const visibility = stringOption(options, 'visibility');
    if (!name || !BOOK_NAME.test(name) || (visibility && visibility !== 'public' && visibility !== 'members')) {
      if (name && !BOOK_NAME.test(name)) err(`${translateAny('en', 'md.books.name')}.\n`);
      err(`Usage: md:book ${BOOK_USAGE}\n`);
      return 2;
    }
    let ownerId: number | undefined;
    const ownerAccount = stringOption(options, 'owner');
    if (ownerAccount) {
      const owner = await findByAccount(runtime.db, ownerAccount);
      if (!owner) return noMember(ctx, ownerAccount);
      ownerId = owner.id;
    }
    const changed = await upsertBook(runtime.db, name, {
      title: stringOption(options, 'title'), titleEn: stringOption(options, 'title-en'), description: stringOption(options, 'description'),
      visibility: visibility as 'public' | 'members' | undefined, ownerId,
    });
    out(`${changed.created ? 'Created' : 'Updated'} book ${changed.book.name} (${changed.book.visibility}).\n`);
    return 0;
  },
});

registerCommand({
  name: 'md:editor', usage: '<book> <account> [--remove]', section: 'md',
  options: { remove: { type: 'boolean' } },
  summary: 'let a member edit a book (or stop them)',
  async run(ctx) {
    const { runtime, args: [bookName, account], options, out, err } = ctx;
    const book = bookName ? await findBook(runtime.db, bookName, { id: 0, groupId: 0 }) : null;
    if (!book) {
      err(`No book "${bookName ?? ''}". See: npm run atrium -- md:books\n`);
      return 1;
    }
    const row = account ? await findByAccount(runtime.db, account) : null;
    if (!row) return noMember(ctx, account);
    if (options.remove) await removeEditor(runtime.db, book.id, row.id);
    else await addEditor(runtime.db, book.id, row.id);
    out(`${row.username} ${options.remove ? 'no longer edits' : 'now edits'} ${book.name}.\n`);
    return 0;
  },
});
