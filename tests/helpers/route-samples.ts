// One realistic call per API route and method, naming the first member's things (tests/helpers/
// authz-site.ts): what the authorization matrix sends as every actor, and what the fuzzer starts
// from. A route without a sample fails the matrix, as one without a declaration does.
import type { Actor } from '../../src/lib/shared/access';
import { PRIVATE, type AuthzSite } from './authz-site';
import { png } from './files';
import { modulePackage } from './module-package';

export interface Sample {
  /** The query string (GET; POST too with `file`). */
  query?: Record<string, string | number>;
  /** POST: the JSON body. */
  body?: unknown;
  /** POST: a multipart body with this file part instead. */
  file?: { field: string; name: string; type: string; data: Buffer };
  /** A reply that stays open (server-sent events): read its head only. */
  stream?: boolean;
}
type Make = (fx: AuthzSite, actor: Actor) => Sample;
export type Samples = Record<string, Partial<Record<'GET' | 'POST' | 'ALL', Make>>>;

/** A valid mainland ID number (GB 11643 check digit) of sequence `seq`, a different one per actor. */
export function idNumber(seq: number): string {
  const body = `11010519800101${String(seq).padStart(3, '0')}`;
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...body].reduce((s, d, i) => s + Number(d) * weights[i]!, 0);
  return body + '10X98765432'[sum % 11]!;
}
const ACTOR_SEQ: Record<Actor, number> = { visitor: 101, member: 102, other: 103, developer: 104, moderator: 105, admin: 106 };

const q = (query: Sample['query']): Make => () => ({ query });
const b = (body: unknown): Make => () => ({ body });
/** Each actor's own nonce: a retried form is not what a cell tests. */
const nonce = (a: Actor, what: string): string => `${what}-${a}-${Date.now().toString(36)}`.slice(0, 40);

export const SAMPLES: Samples = {
  '/api/[...rest]': { ALL: q({}) },
  '/api/m/[...path]': { ALL: q({}) },
  '/api/account/apiTokens': { GET: q({}), POST: (_fx, a) => ({ body: { action: 'create', name: `token ${a}` } }) },
  '/api/account/balance': { GET: q({ page: 1 }) },
  '/api/account/balanceExport': { GET: q({}) },
  '/api/account/changeBind': { POST: b({ type: 'email', captcha: '123456', email: 'new@example.com', accountVerificationToken: 'x'.repeat(32) }) },
  '/api/account/changePassword': { POST: b({ oldPassword: 'wrong-password', newPassword: 'another-pass1' }) },
  '/api/account/integral': { GET: q({ page: 1 }) },
  '/api/account/invoice': {
    GET: q({ page: 1 }),
    POST: (fx) => ({ body: { amount: '1.00', title: 'Example Ltd', email: 'billing@example.com', order_id: fx.aliceOrderId } }),
  },
  '/api/account/notice': { GET: q({ page: 1 }), POST: (fx) => ({ body: { ids: [fx.noticeId] } }) },
  '/api/account/openSourceStar': { POST: b({ starred: false }) },
  '/api/account/overview': { GET: q({}) },
  '/api/account/profile': { GET: q({}), POST: (_fx, a) => ({ body: { nickname: `Nick ${a}`, gender: 0, motto: 'Hello' } }) },
  '/api/account/retrievePassword': { POST: b({ type: 'email', account: 'alice@example.com', captcha: '123456', password: 'stolen-pass1' }) },
  '/api/account/signIn': { GET: q({}), POST: b({}) },
  '/api/account/verification': { POST: b({ type: 'email', captcha: '123456' }) },

  '/api/admin/audit': { GET: q({ page: 1 }) },
  '/api/admin/backup': { POST: b({}) },
  '/api/admin/bookArchive': { POST: (fx) => ({ body: { name: fx.book, archive: 0 } }) },
  '/api/admin/bookCreate': { POST: (_fx, a) => ({ body: { name: `console-${a}`, title: `Console book by ${a}` } }) },
  // No confirmation: the book survives, and the call is refused past the permission check.
  '/api/admin/bookDelete': { POST: (fx) => ({ body: { name: fx.book } }) },
  '/api/admin/bookEditor': { POST: (fx) => ({ body: { name: fx.book, user_id: fx.ids.carol } }) },
  '/api/admin/books': { GET: q({}), POST: (fx) => ({ body: { name: fx.book, visibility: 'public' } }) },
  '/api/admin/dashboard': { GET: q({}) },
  '/api/admin/groups': { GET: q({}), POST: (fx) => ({ body: { id: fx.moderatorGroup, rules: '' } }) },
  '/api/admin/groupCopy': { POST: (_fx, actor) => ({ body: { id: 1, name: `copy-${actor}`, name_en: '' } }) },
  '/api/admin/groupCreate': { POST: (_fx, actor) => ({ body: { name: `new-${actor}`, name_en: `New ${actor}`, rules: '' } }) },
  '/api/admin/groupDelete': { POST: (fx) => ({ body: { id: fx.spareGroup, move_to: 1 } }) },
  '/api/admin/rules': { GET: q({}) },
  '/api/admin/ruleCreate': { POST: (fx, a) => ({ body: { pid: fx.ruleDir, type: 'menu', name: `matrix-new-${a}`, title: `New ${a}`, menu_type: 'link', url: 'https://example.com/new' } }) },
  '/api/admin/ruleEdit': { POST: (fx) => ({ body: { id: fx.customRule, pid: fx.ruleDir, type: 'menu', name: 'matrix-link', title: 'Matrix link', title_en: 'Matrix link', menu_type: 'link', url: 'https://example.com/edited' } }) },
  '/api/admin/ruleStatus': { POST: (fx) => ({ body: { id: fx.customRule, status: 1 } }) },
  '/api/admin/ruleSort': { POST: (fx) => ({ body: { pid: fx.ruleDir, ids: String(fx.customRule) } }) },
  '/api/admin/ruleDelete': { POST: (fx) => ({ body: { id: fx.doomedRule } }) },
  '/api/admin/groupRename': { POST: (fx) => ({ body: { id: fx.moderatorGroup, name: 'Moderators', name_en: 'Moderators' } }) },
  '/api/admin/invoices': { GET: q({}), POST: (fx) => ({ body: { id: fx.invoiceId, decision: 'approve' } }) },
  '/api/admin/member': { GET: (fx) => ({ query: { id: fx.ids.member } }) },
  '/api/admin/memberAdjust': { POST: (fx) => ({ body: { id: fx.ids.member, kind: 'score', amount: '5', memo: 'matrix' } }) },
  '/api/admin/memberGroup': { POST: (fx) => ({ body: { id: fx.ids.carol, group_id: 1 } }) },
  '/api/admin/memberReset': { POST: (fx) => ({ body: { id: fx.ids.carol } }) },
  '/api/admin/memberStatus': { POST: (fx) => ({ body: { id: fx.ids.carol, status: 'enable' } }) },
  '/api/admin/members': { GET: q({ page: 1 }) },
  '/api/admin/modules': { GET: q({}), POST: b({ uid: 'editor', install: 1 }) },
  '/api/admin/noticeStatus': { POST: (fx) => ({ body: { id: fx.noticeId, status: 1 } }) },
  '/api/admin/notices': { GET: q({}), POST: (_fx, a) => ({ body: { title: `Notice by ${a}`, content: 'Body' } }) },
  // Nothing is connected on the matrix's site: a disconnect or an install past the check is refused.
  '/api/admin/remoteMarkets': { GET: q({}), POST: b({ action: 'disconnect', id: 999_999 }) },
  '/api/admin/remoteModules': { GET: q({}), POST: b({ uid: 'nosuchmodule' }) },
  '/api/admin/reports': { GET: q({}), POST: (fx, a) => ({ body: { id: fx.reportOf[a], action: 'dismiss' } }) },
  '/api/admin/settings': { GET: q({}), POST: b({ values: { site_name: 'Atrium' } }) },
  '/api/admin/testMail': { POST: b({ to: 'ops@example.com' }) },
  '/api/admin/testSms': { POST: b({ to: '13800138000' }) },
  '/api/admin/withdrawals': { GET: q({}), POST: (fx) => ({ body: { id: fx.withdrawalId, decision: 'reject', remark: 'matrix' } }) },

  '/api/ajax/area': { GET: q({ province: '11' }) },
  '/api/ask/accept': { POST: (fx) => ({ body: { reply_id: fx.replyId } }) },
  '/api/ask/collect': { POST: (fx) => ({ body: { post_id: fx.postId } }) },
  '/api/ask/index/index': { GET: q({ tab: 'latest' }) },
  '/api/ask/info': { GET: (fx) => ({ query: { id: fx.postId } }) },
  '/api/ask/moderate': { POST: (fx, a) => ({ body: { post_id: fx.postOf[a], action: 'pin' } }) },
  '/api/ask/my': { GET: q({ kind: 'post' }) },
  '/api/ask/post': {
    POST: (fx, a) => ({ body: { id: fx.postOf[a], title: `Alice's post, edited by ${a}`, category_id: fx.categoryId, content: 'Edited body text', tags: [] } }),
  },
  '/api/ask/remove': { POST: (fx, a) => ({ body: { type: 'post', id: fx.postOf[a] } }) },
  '/api/ask/reply': { POST: (fx, a) => ({ body: { post_id: fx.postId, content: `A reply from ${a}`, nonce: nonce(a, 'reply') } }) },
  '/api/ask/report': { POST: (fx, a) => ({ body: { type: 'reply', id: fx.replyId, reason: `Reported by ${a}` } }) },
  '/api/ask/reports': { GET: q({}), POST: (fx, a) => ({ body: { id: fx.otherReportOf[a], status: 'dismissed' } }) },
  '/api/ask/search': { GET: q({ keywords: 'alice' }) },
  '/api/ask/view': { POST: (fx) => ({ body: { post_id: fx.postId } }) },
  '/api/ask/vote': { POST: (fx) => ({ body: { type: 'reply', id: fx.replyId, value: 1 } }) },

  '/api/chat/branch': { POST: (fx) => ({ body: { id: fx.chatId, leafId: 'alicechat-kept-q1' } }) },
  '/api/chat/conversation': { GET: (fx) => ({ query: { id: fx.chatId } }) },
  '/api/chat/delete': { POST: (fx, a) => ({ body: { id: fx.chatOf[a] } }) },
  '/api/chat/list': { GET: q({}) },
  '/api/chat/models': { GET: q({}) },
  '/api/chat/rename': { POST: (fx, a) => ({ body: { id: fx.chatId, title: `${PRIVATE} renamed by ${a}` } }) },
  '/api/chat/send': { POST: (fx) => ({ body: { id: fx.chatId, messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }] } }) },
  '/api/chat/stop': { POST: (fx) => ({ body: { id: fx.chatId } }) },
  '/api/chat/stream': { GET: (fx) => ({ query: { id: fx.chatId } }) },

  '/api/common/altcha': { GET: q({}) },
  '/api/common/checkClickCaptcha': { POST: b({ id: 'nosuchcaptcha1', info: '1,1;300;200' }) },
  '/api/common/clickCaptcha': { GET: (_fx, a) => ({ query: { id: `matrix${a}` } }) },
  '/api/common/refreshToken': { POST: b({ refreshToken: 'not-a-refresh-token' }) },
  '/api/cos/callback': { POST: b({ url: 'uploads/1/a.png', name: 'a.png', size: 10, type: 'image/png', sha1: 'a'.repeat(40) }) },
  '/api/cos/refreshToken': { GET: q({}) },

  '/api/developer/delist': { POST: (fx) => ({ body: { id: fx.moduleId } }) },
  '/api/developer/earnings': { GET: q({}) },
  '/api/developer/module': { GET: (fx) => ({ query: { id: fx.moduleId } }) },
  '/api/developer/modules': { GET: q({}) },
  '/api/developer/orders': { GET: q({}) },
  '/api/developer/relist': { POST: (fx) => ({ body: { id: fx.moduleId } }) },
  '/api/developer/save': {
    POST: (fx, a) => ({ body: { id: fx.draftId, uid: 'alice-draft', name: `Draft saved by ${a}`, description: 'Edited description', category: 'tools' } }),
  },
  '/api/developer/submit': { POST: (fx) => ({ body: { id: fx.draftId } }) },
  '/api/developer/verif': {
    GET: q({}),
    POST: (_fx, a) => ({ body: { real_name: '李四', id_number: idNumber(ACTOR_SEQ[a]), mobile: '13800138000', email: 'apply@example.com', province: '11', city: '1101', intro: 'I write modules for a living' } }),
  },
  // The other developer names alice's package on a draft of his own.
  '/api/developer/version': { POST: (fx, a) => ({ body: { module_id: a === 'developer' ? fx.devDraftId : fx.draftId, version: '1.0.0', changelog: 'First', package_id: fx.packageId } }) },
  '/api/developer/withdraw': { POST: b({ amount: '100', account: 'ICBC 6222 0000 1111' }) },
  '/api/developer/withdrawals': { GET: q({}) },

  '/api/ems/send': { POST: b({ email: 'alice@example.com', event: 'user_retrieve_pwd' }) },
  '/api/index/route': { GET: q({ path: '/nowhere' }) },
  '/api/index/index/index': { GET: q({ requiredLogin: 1 }) },
  '/api/install/create': { POST: b({ token: 'not-the-token', username: 'intruder', email: 'intruder@example.com', password: 'intruder-pass1', site_name: 'Mine' }) },

  '/api/interaction/block': { POST: (fx) => ({ body: { user_id: fx.ids.carol, block: false } }) },
  '/api/interaction/count': { GET: q({}) },
  '/api/interaction/delMessage': { POST: (fx, a) => ({ body: { ids: [fx.messageOf[a]] } }) },
  '/api/interaction/dialog': { GET: (fx) => ({ query: { user_id: fx.ids.carol } }) },
  '/api/interaction/loadMoreUserRecent': { GET: q({ page: 1 }) },
  '/api/interaction/mailPref': { GET: q({}), POST: b({ kinds: [] }) },
  '/api/interaction/markRead': { POST: (fx, a) => ({ body: { ids: [fx.unreadOf[a]] } }) },
  '/api/interaction/messageList': { GET: q({ tab: 'all' }) },
  '/api/interaction/sendMessage': { POST: (fx, a) => ({ body: { user_id: fx.ids.carol, content: `Hello from ${a}` } }) },
  '/api/interaction/userCard': { GET: (fx) => ({ query: { user_id: fx.ids.member } }) },

  '/api/market/key': { GET: q({}) },
  // A session is not a token: every actor is refused before anything is listed or served.
  '/api/market/remote/list': { GET: q({}) },
  '/api/market/remote/package': { GET: (fx) => ({ query: { uid: fx.packageUid, version: '1.0.0' } }) },
  '/api/market/review': { GET: q({}), POST: (fx) => ({ body: { type: 'module', id: fx.draftId, approve: false, reason: 'Not ready' } }) },

  '/api/md/bookArchive': { POST: (fx) => ({ body: { name: fx.book, archive: 0 } }) },
  '/api/md/bookCreate': { POST: (_fx, a) => ({ body: { name: `book-${a}`, title: `Book by ${a}` } }) },
  '/api/md/bookDelete': { POST: (fx) => ({ body: { name: fx.book } }) },
  '/api/md/bookEditor': { POST: (fx) => ({ body: { name: fx.book, user_id: fx.ids.carol } }) },
  '/api/md/bookSave': { POST: (fx) => ({ body: { name: fx.book, title_en: 'Alice handbook' } }) },
  '/api/md/books': { GET: q({}) },
  '/api/md/create': { POST: (fx, a) => ({ body: { book: fx.book, name: `new-${a}`, title: `New page by ${a}` } }) },
  '/api/md/delete': { POST: (fx, a) => ({ body: { book: fx.book, name: fx.doomedPageOf[a] } }) },
  '/api/md/history': { GET: (fx) => ({ query: { book: fx.book, name: 'index' } }) },
  '/api/md/move': { POST: (fx, a) => ({ body: { book: fx.book, name: fx.pageOf[a], direction: 'up' } }) },
  '/api/md/page': { GET: (fx) => ({ query: { book: fx.book, name: 'index' } }) },
  '/api/md/rename': { POST: (fx, a) => ({ body: { book: fx.book, name: fx.pageOf[a], new_name: `renamed-${a}` } }) },
  '/api/md/restore': { POST: (fx) => ({ body: { book: fx.book, name: 'index', revision_id: fx.indexRevision } }) },
  '/api/md/revision': { GET: (fx) => ({ query: { book: fx.book, name: 'index', ids: String(fx.indexRevision) } }) },
  '/api/md/save': { POST: (fx, a) => ({ body: { book: fx.book, name: fx.savedPageOf[a].name, title: `Saved by ${a}`, content: 'New text', base_revision: fx.savedPageOf[a].revision } }) },
  '/api/md/search': { GET: q({ q: 'hello' }) },
  '/api/md/tree': { GET: (fx) => ({ query: { book: fx.book } }) },

  '/api/modules/buy': { POST: (fx, a) => ({ body: { uid: fx.moduleUid, pay_type: 'score', nonce: nonce(a, 'buy') } }) },
  '/api/modules/download': { GET: (fx) => ({ query: { uid: fx.packageUid } }) },
  '/api/modules/install': { POST: b({ uid: 'editor' }) },
  '/api/modules/lifecycle': { POST: b({ uid: 'nosuchmodule', action: 'disable' }) },
  '/api/modules/settings': { GET: q({ uid: 'nosuchmodule' }), POST: b({ uid: 'nosuchmodule', values: { url: '' } }) },
  '/api/modules/orders': { GET: q({}) },
  '/api/modules/review': { POST: (fx) => ({ body: { uid: fx.devModuleUid, rating: 5, content: 'Great' } }) },
  '/api/modules/reviewReply': { POST: (fx) => ({ body: { review_id: fx.reviewId, content: 'Thank you' } }) },
  '/api/modules/reviews': { GET: (fx) => ({ query: { uid: fx.moduleUid } }) },
  '/api/modules/uninstall': { POST: b({ uid: 'nosuchmodule' }) },

  '/api/s3/callback': { POST: b({ url: 'uploads/1/a.png', name: 'a.png', size: 10, type: 'image/png', sha1: 'a'.repeat(40) }) },
  '/api/sms/send': { POST: b({ mobile: '13800138000', template_code: 'user_retrieve_pwd' }) },
  '/api/upload/config': { GET: q({}) },
  '/api/upload/multipart': { POST: (fx) => ({ body: { op: 'abort', key: `uploads/${fx.ids.member}/a.png`, uploadId: 'up1' } }) },
  '/api/upload/prepare': { POST: b({ name: 'a.png', size: 10, type: 'image/png', sha1: 'a'.repeat(40) }) },
  '/api/upload/sign': { POST: (fx) => ({ body: { key: `uploads/${fx.ids.member}/a.png`, uploadId: 'up1', partNumbers: [1] } }) },
  '/api/user/checkIn': { GET: q({}), POST: b({ tab: 'login', username: 'carol', password: 'wrong-password', keep: false }) },
  '/api/user/logout': { POST: b({}) },
  '/api/user/resetPassword': { POST: b({ token: 'not-a-reset-token', password: 'another-pass1' }) },

  // Answered by the Node server itself (src/server/raw-routes.ts).
  '/api/ajax/upload': { POST: (_fx, a) => ({ query: { driver: 'local', topic: 'matrix' }, file: { field: 'file', name: `${a}.png`, type: 'image/png', data: png(2, 2, ACTOR_SEQ[a]) } }) },
  '/api/developer/package': {
    POST: (_fx, a) => ({ file: { field: 'file', name: `pkg-${a}.zip`, type: 'application/zip', data: modulePackage(`pkg-${a}`) } }),
  },
  '/api/interaction/stream': { GET: () => ({ stream: true }) },
};

/**
 * Calls that change what other cells depend on (sessions, groups, the installed editor): sent after
 * every other cell, in this order.
 */
export const LAST: string[] = ['/api/admin/groups', '/api/user/logout'];
