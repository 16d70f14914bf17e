// The site the authorization matrix and the fuzzer attack: six actors (tests/../access.ts ACTORS)
// and, owned by the first member `alice`, one of everything a call can name: posts and replies, a
// private message, chat conversations, a published module with an order, a review and a package, a
// draft module, an invoice request, a withdrawal, a docs book. Things a call destroys (a post, a
// conversation, a page…) exist once per actor, still all alice's, so that every cell finds its own.
// Built through the product's services with the database closed again before the server opens it.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { and, eq, inArray } from 'drizzle-orm';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { adjustMoney, adjustScore } from '../../src/lib/server/account/ledger';
import { ADMIN_GROUP, MEMBER_GROUP } from '../../src/lib/server/site/seed';
import { installModule } from '../../src/lib/server/modules/installs';
import { applyDeveloper, decideDeveloper } from '../../src/lib/server/market/developers';
import { createPost } from '../../src/lib/server/ask/posts';
import { createReply } from '../../src/lib/server/ask/replies';
import { report } from '../../src/lib/server/ask/moderation';
import { sendPrivate } from '../../src/lib/server/messages/dialog';
import { ensureConversation } from '../../src/lib/server/chat/conversations';
import { upsertBook } from '../../src/lib/server/md/books';
import { createPage } from '../../src/lib/server/md/pages';
import { buyModule } from '../../src/lib/server/market/orders';
import { saveReview } from '../../src/lib/server/market/reviews';
import { packageFile } from '../../src/lib/server/market/packages';
import { modulePackage } from './module-package';
import { moduleText } from '../../src/lib/server/market/text';
import { requestInvoice } from '../../src/lib/server/account/invoices';
import {
  askCategory, askReport, attachment, chatMessage, developerEarning, developerWithdrawal, messages, module, moduleOrder, moduleVersion, notice, user, userGroup, userRule,
} from '../../src/lib/server/db/schema';
import { ACTORS, type Actor } from '../../src/lib/shared/access';
import type { Db } from '../../src/lib/server/db/client';
import type { Runtime } from '../../src/lib/server/runtime';
import { ROOT, TEMPLATE_DIR, TMP } from './paths';
import { postJson, startServer, type TestServer } from './server';
import { loadRoutes, type ApiRoute } from './api-routes';

export const PASSWORD = 'matrix-pass1';
/** Text only alice and the operators may ever see: no reply to anyone else may contain it. */
export const PRIVATE = 'PRIVMARK7';

export const USERNAMES: Record<Exclude<Actor, 'visitor'>, string> = {
  member: 'alice', other: 'bob', developer: 'devone', moderator: 'modone', admin: 'boss',
};

type PerActor<T> = Record<Actor, T>;

export interface AuthzSite {
  ids: Record<Exclude<Actor, 'visitor'> | 'carol', number>;
  /** Alice's post with carol's reply on it (accept, vote, collect, report, view). */
  postId: number;
  replyId: number;
  /** Alice's posts and replies, one per actor (remove, edit). */
  postOf: PerActor<number>;
  /** Notifications of alice's, one per actor to delete and one to mark read. */
  messageOf: PerActor<number>;
  unreadOf: PerActor<number>;
  /** Alice's chat conversations, one per actor (rename, delete), and one kept. */
  chatOf: PerActor<string>;
  chatId: string;
  /** Alice's published paid module (devone bought it, reviewed it), its review, her draft module. */
  moduleUid: string;
  moduleId: number;
  reviewId: number;
  draftId: number;
  /** devone's own draft, and a package alice uploaded (devone may not use it on his module). */
  devDraftId: number;
  packageId: number;
  /** Carol's paid order of alice's module (alice is the developer) and alice's own order of devone's. */
  devModuleUid: string;
  aliceOrderId: number;
  invoiceId: number;
  withdrawalId: number;
  /** Open reports (alice's, carol's) on alice's posts, one per actor (two report lists close them). */
  reportOf: PerActor<number>;
  otherReportOf: PerActor<number>;
  noticeId: number;
  categoryId: number;
  /** Alice's docs book, with pages per actor: to move and rename, to delete, to save (from its revision). */
  book: string;
  indexRevision: number;
  /** Alice's paid module only devone bought (download). */
  packageUid: string;
  pageOf: PerActor<string>;
  doomedPageOf: PerActor<string>;
  savedPageOf: PerActor<{ name: string; revision: number }>;
  moderatorGroup: number;
  /** A group without members, for the console's delete call. */
  spareGroup: number;
  /** The member center's `account` directory, and two link menus an administrator made under it (the second for the delete call). */
  ruleDir: number;
  customRule: number;
  doomedRule: number;
}

const now = (): number => Math.floor(Date.now() / 1000);
const per = <T>(make: (a: Actor) => Promise<T>): Promise<PerActor<T>> =>
  ACTORS.reduce(async (acc, a) => ({ ...(await acc), [a]: await make(a) }), Promise.resolve({} as PerActor<T>));

async function makeModule(db: Db, runtime: Pick<Runtime, 'config'>, uid: string, developerId: number, price: number, status: 'published' | 'draft'): Promise<number> {
  const t = now();
  const text = await moduleText({ name: uid, summary: 'A test module', tags: [], description: 'Does one thing well.' });
  const [row] = await db.insert(module).values({
    uid, developerId, name: `Module ${uid}${status === 'draft' && uid.startsWith('alice') ? ` ${PRIVATE}` : ''}`, summary: 'A test module', description: 'Does one thing well.', category: 'tools',
    price, scorePrice: price ? 300 : 0, status, latestVersion: status === 'published' ? '1.0.0' : '', publishTime: status === 'published' ? t - 10 : 0, createTime: t, updateTime: t, ...text,
  }).returning({ id: module.id });
  if (status === 'published') {
    const packagePath = `test/${uid}-1.0.0.zip`;
    const file = packageFile(runtime, packagePath)!;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, Buffer.from(`PK\x03\x04 package of ${uid}`));
    await db.insert(moduleVersion).values({ moduleId: row!.id, version: '1.0.0', changelog: 'First', packagePath, packageName: 'p.zip', packageSize: 20, status: 'published', publishTime: t - 10, createTime: t });
  }
  return row!.id;
}

/** A member the matrix puts in a custom group holding only the reports rules. */
export const CUSTOM_USERNAME = 'cusone';

export async function prepareAuthzSite(env: { DATA_DIR: string; DATABASE_URL?: string }): Promise<AuthzSite> {
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', ...env }));
  try {
    const db = rt.db;
    await rt.site.set('user_login_captcha', '0');
    // A moderator: the member rules plus the forum's moderation and the console's reports section.
    const rules = await db.select({ id: userRule.id, name: userRule.name }).from(userRule);
    const [memberGroup] = await db.select({ rules: userGroup.rules }).from(userGroup).where(eq(userGroup.id, MEMBER_GROUP));
    const modRules = rules.filter((r) => ['ask/reports', 'ask/moderate', 'admin', 'admin/reports'].includes(r.name)).map((r) => r.id);
    const [modGroup] = await db.insert(userGroup).values({ name: 'Moderators', rules: [memberGroup!.rules, ...modRules].join(','), status: 1, createTime: now(), updateTime: now() }).returning({ id: userGroup.id });

    const [spare] = await db.insert(userGroup).values({ name: 'Spare', rules: '', status: 1, createTime: now(), updateTime: now() }).returning({ id: userGroup.id });
    const [ruleDir] = await db.select({ id: userRule.id }).from(userRule).where(and(eq(userRule.type, 'menu_dir'), eq(userRule.name, 'account')));
    const [customRule, doomedRule] = await db.insert(userRule).values(['matrix-link', 'matrix-doomed'].map((name) => ({
      pid: ruleDir!.id, type: 'menu', name, title: name, path: name, menuType: 'link', url: 'https://example.com/', status: 1, createTime: now(), updateTime: now(),
    }))).returning({ id: userRule.id });
    const make = (username: string, groupId = MEMBER_GROUP) => createUser(db, { username, email: `${username}@example.com`, password: PASSWORD, groupId });
    const alice = await make('alice');
    const bob = await make('bob');
    const devone = await make('devone');
    const modone = await make('modone', modGroup!.id);
    const boss = await make('boss', ADMIN_GROUP);
    const carol = await make('carol');
    // Put in a custom group by the matrix test itself, through the console's API.
    await make(CUSTOM_USERNAME);
    const ids = { member: alice.id, other: bob.id, developer: devone.id, moderator: modone.id, admin: boss.id, carol: carol.id };
    // Established members: the forum's new-member limits are not what this tests.
    await db.update(user).set({ joinTime: now() - 30 * 86_400 }).where(inArray(user.id, Object.values(ids)));
    for (const id of Object.values(ids)) {
      await adjustMoney(db, id, 100_000, 'top-up');
      await adjustScore(db, id, 5_000, 'top-up');
    }

    await installModule(db, 'editor', boss.id);
    for (const [who, idNumber] of [[alice, '11010519491231002X'], [devone, '110108199003071234']] as const) {
      await applyDeveloper(db, who.id, { real_name: '张三', id_number: idNumber, mobile: '13800138000', email: `${who.username}@example.com`, province: '11', city: '1101', intro: 'I write modules for a living' } as never);
      await decideDeveloper(db, { userId: who.id, approve: true, reviewerId: boss.id });
    }

    const [category] = await db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.type, 'normal')).orderBy(askCategory.id).limit(1);
    const categoryId = category?.id ?? (await db.select({ id: askCategory.id }).from(askCategory).limit(1))[0]!.id;
    const newPost = async (title: string): Promise<number> =>
      (await createPost(db, alice.id, { title, category_id: categoryId, content: 'A body long enough to publish.', tags: [] } as never)).id;
    const postId = await newPost('Alice asks a question');
    const replyId = (await createReply(db, carol.id, { post_id: postId, parent_id: 0, content: 'Carol answers it.' } as never)).id;
    const postOf = await per((a) => newPost(`Alice's post for ${a}`));
    const reportBy = async (reporter: number, target: number): Promise<number> => {
      await report(db, reporter, { type: 'post', id: target, reason: 'Spam and more spam' } as never);
      const [row] = await db.select({ id: askReport.id }).from(askReport).where(and(eq(askReport.userId, reporter), eq(askReport.targetId, target)));
      return row!.id;
    };
    const reportOf = await per((a) => reportBy(alice.id, postOf[a]));
    const otherReportOf = await per((a) => reportBy(carol.id, postOf[a]));

    await sendPrivate(db, carol, alice.id, `${PRIVATE} private message`);
    // Notifications (private messages are kept: delMessage deletes the others).
    const note = async (title: string): Promise<number> => (await db.insert(messages).values({
      type: 'system', senderId: 0, recipientId: alice.id, title, link: '/user', createTime: now(),
    }).returning({ id: messages.id }))[0]!.id;
    const messageOf = await per((a) => note(`${PRIVATE} notice for ${a}`));
    const unreadOf = await per((a) => note(`${PRIVATE} unread notice for ${a}`));

    const chatOf = await per(async (a) => {
      const id = `alicechat-${a}`;
      await ensureConversation(db, alice.id, id, `${PRIVATE} question for ${a}`, 'assistant');
      return id;
    });
    const chatId = 'alicechat-kept';
    await ensureConversation(db, alice.id, chatId, `${PRIVATE} kept question`, 'assistant');
    // Its first question: the branch the owner may choose (/api/chat/branch).
    await db.insert(chatMessage).values({ id: 'alicechat-kept-q1', conversationId: chatId, role: 'user', text: `${PRIVATE} kept question`, createTime: now() });

    const moduleId = await makeModule(db, rt, 'alice-paid', alice.id, 1_990, 'published');
    const draftId = await makeModule(db, rt, 'alice-draft', alice.id, 0, 'draft');
    const devDraftId = await makeModule(db, rt, 'devone-draft', devone.id, 0, 'draft');
    // A module package alice uploaded (private attachment): only her versions may use it.
    const draftPackage = modulePackage('alice-draft', '1.0.0');
    mkdirSync(dirname(packageFile(rt, 'test/alice-draft-1.0.0.zip')!), { recursive: true });
    writeFileSync(packageFile(rt, 'test/alice-draft-1.0.0.zip')!, draftPackage);
    const [pkg] = await db.insert(attachment).values({
      topic: 'package', userId: alice.id, url: 'test/alice-draft-1.0.0.zip', name: 'alice-draft-1.0.0.zip', size: draftPackage.length, mimetype: 'application/zip',
      storage: 'private', sha1: 'b'.repeat(40), createTime: now(), lastUploadTime: now(),
    }).returning({ id: attachment.id });
    await makeModule(db, rt, 'devone-paid', devone.id, 990, 'published');
    await makeModule(db, rt, 'alice-pkg', alice.id, 2_990, 'published');
    await buyModule(db, { userId: devone.id, uid: 'alice-pkg', payType: 'balance', nonce: 'matrix-devone-2' } as never);
    await buyModule(db, { userId: devone.id, uid: 'alice-paid', payType: 'balance', nonce: 'matrix-devone-1' } as never);
    await buyModule(db, { userId: carol.id, uid: 'alice-paid', payType: 'balance', nonce: 'matrix-carol-1' } as never);
    const { order } = await buyModule(db, { userId: alice.id, uid: 'devone-paid', payType: 'balance', nonce: 'matrix-alice-1' } as never);
    const review = await saveReview(db, { userId: carol.id, uid: 'alice-paid', rating: 4, content: 'Good module' });
    const invoiceId = await requestInvoice(db, alice.id, { amount: '1.00', title: `${PRIVATE} Ltd`, email: 'alice@example.com' } as never);
    const t = now();
    for (const [developerId, orderId] of [[alice.id, 999_001], [devone.id, 999_002]] as const) {
      await db.insert(developerEarning).values({ developerId, orderId, kind: 'money', gross: 50_000, commission: 7_500, amount: 42_500, createTime: t });
    }
    const [w] = await db.insert(developerWithdrawal).values({ developerId: alice.id, amount: 20_000, account: `${PRIVATE} 6222`, status: 'pending', createTime: t, updateTime: t }).returning({ id: developerWithdrawal.id });
    const [n] = await db.insert(notice).values({ title: 'Site notice', content: 'Hello members', status: 1, createTime: t }).returning({ id: notice.id });

    const book = 'alicebook';
    const { book: row } = await upsertBook(db, book, { title: 'Alice handbook', visibility: 'public', ownerId: alice.id });
    const index = await createPage(db, { bookId: row.id, name: 'index', title: 'Start', content: 'Hello', authorId: alice.id });
    const page = (name: string) => createPage(db, { bookId: row.id, name, title: `Page ${name}`, content: 'Text', authorId: alice.id });
    const pageOf = await per(async (a) => (await page(`page-${a}`)).name);
    const doomedPageOf = await per(async (a) => (await page(`doomed-${a}`)).name);
    const savedPageOf = await per(async (a) => {
      const created = await page(`saved-${a}`);
      return { name: created.name, revision: created.revisionId };
    });
    return {
      ids, postId, replyId, postOf, messageOf, unreadOf, chatOf, chatId,
      moduleUid: 'alice-paid', moduleId, reviewId: review.id, draftId, devDraftId, packageId: pkg!.id, devModuleUid: 'devone-paid', packageUid: 'alice-pkg', aliceOrderId: (await db.select({ id: moduleOrder.id }).from(moduleOrder).where(eq(moduleOrder.orderNo, order.orderNo)))[0]!.id,
      invoiceId, withdrawalId: w!.id, reportOf, otherReportOf, noticeId: n!.id, categoryId, book, indexRevision: index.revisionId, pageOf, doomedPageOf, savedPageOf, moderatorGroup: modGroup!.id, spareGroup: spare!.id,
      ruleDir: ruleDir!.id, customRule: customRule!.id, doomedRule: doomedRule!.id,
    };
  } finally {
    await rt.close();
  }
}

/** Logs every actor but the visitor in through the API: their access tokens. */
export async function logInActors(url: string): Promise<Partial<Record<Actor, string>>> {
  const tokens: Partial<Record<Actor, string>> = {};
  for (const actor of ACTORS) {
    if (actor === 'visitor') continue;
    const res = await postJson(url, '/api/user/checkIn', { tab: 'login', username: USERNAMES[actor], password: PASSWORD, keep: false });
    const body = res.json<{ code: number; data: { userInfo: { token: string } } }>();
    if (body.code !== 1) throw new Error(`login ${actor}: ${res.text}`);
    tokens[actor] = body.data.userInfo.token;
  }
  return tokens;
}

export interface AuthzServer {
  server: TestServer;
  fx: AuthzSite;
  routes: ApiRoute[];
  /** Access tokens of every actor but the visitor. */
  tokens: Partial<Record<Actor, string>>;
  close(): Promise<void>;
}

/**
 * A copy of the template site with the actors and the first member's things (prepareAuthzSite),
 * served with `env` (DATABASE_URL in it is used for the preparation too), every actor logged in.
 */
export async function startAuthzServer(prefix: string, env: Record<string, string>): Promise<AuthzServer> {
  const dataDir = mkdtempSync(join(TMP, prefix));
  cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
  try {
    const [fx, routes] = await Promise.all([prepareAuthzSite({ DATA_DIR: dataDir, ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {}) }), loadRoutes()]);
    const server = await startServer({ dataDir, env });
    try {
      const tokens = await logInActors(server.url);
      return { server, fx, routes, tokens, async close() { await server.stop(); rmSync(dataDir, { recursive: true, force: true }); } };
    } catch (err) {
      await server.stop();
      throw err;
    }
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
