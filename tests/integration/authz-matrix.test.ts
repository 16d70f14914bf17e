// The authorization matrix (issue 17): every API route file × visitor, member, another member, an
// approved developer, a moderator and an administrator, each outcome declared next to the route
// (`export const access`, src/lib/shared/access.ts). One server, one realistic call per cell that
// names the first member's things; a route without a declaration or a sample fails. Nothing of the
// first member's private text reaches anyone but them and the operators, and what the other
// actors tried to change of theirs is still there afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTORS, declaredRules, type Actor, type Outcome } from '../../src/lib/shared/access';
import { postJson, raw, type RawResponse, type TestServer } from '../helpers/server';
import { CUSTOM_USERNAME, PASSWORD, PRIVATE, USERNAMES, startAuthzServer, type AuthzServer, type AuthzSite } from '../helpers/authz-site';
import { LAST, SAMPLES } from '../helpers/route-samples';
import { methodsOf, rawRouteProblems, send, type ApiRoute } from '../helpers/api-routes';
import { scaled } from '../helpers/time-scale.mjs';

let server: TestServer;
let fx: AuthzSite;
let routes: ApiRoute[];
let tokens: Partial<Record<Actor, string>>;
let site: AuthzServer | undefined;

beforeAll(async () => {
  site = await startAuthzServer('authz-', { API_RATE_LIMIT: '100000' });
  ({ server, fx, routes, tokens } = site);
}, scaled(120_000));

afterAll(async () => {
  await site?.close();
});

interface Seen { outcome: Outcome | 'error'; status: number; code?: number; msg?: string }

/** The outcome class of a reply (see `Outcome`). */
function classify(res: RawResponse): Seen {
  const type = String(res.headers['content-type'] ?? '');
  if (res.status >= 500) return { outcome: 'error', status: res.status, msg: res.text.slice(0, 200) };
  if (!type.includes('application/json')) {
    // A file, a CSV, an event stream, or 204 (no reply being written).
    return { outcome: res.status === 200 || res.status === 204 ? 'ok' : res.status === 404 ? 'notfound' : 'error', status: res.status, msg: res.text.slice(0, 120) };
  }
  const body = res.json<{ code: number; msg: string; data: { type?: string } | null }>();
  const seen = { status: res.status, code: body.code, msg: body.msg };
  if (body.code === 1) return { ...seen, outcome: 'ok' };
  if (body.code === 303) return { ...seen, outcome: body.data?.type === 'logged in' ? 'guest' : 'login' };
  if (body.code === 401) return { ...seen, outcome: 'denied' };
  if (body.code === 0) return { ...seen, outcome: res.status === 404 ? 'notfound' : 'refused' };
  return { ...seen, outcome: 'error' };
}

/** `notfound` and `refused` are both code 0: a 404 or a 200 may carry either. */
const matches = (declared: Outcome, seen: Seen): boolean =>
  declared === seen.outcome || ((declared === 'notfound' || declared === 'refused') && (seen.outcome === 'notfound' || seen.outcome === 'refused'));

/** Actors whose replies may never hold the first member's private text. */
const OUTSIDERS: Actor[] = ['visitor', 'other', 'developer', 'moderator'];
/** The owner goes last: the others try first, on things that are still there. */
const ORDER: Actor[] = ['visitor', 'other', 'developer', 'moderator', 'admin', 'member'];

describe('the authorization matrix', () => {
  it('has a declaration for every method of every route file, and a sample call for each', async () => {
    expect(routes.length).toBeGreaterThan(100);
    const problems: string[] = [];
    for (const r of routes) {
      if (!r.access) { problems.push(`${r.key}: no \`export const access\``); continue; }
      for (const [method] of methodsOf(r.access)) if (!SAMPLES[r.key]?.[method]) problems.push(`${r.key} ${method}: no sample in tests/helpers/route-samples.ts`);
    }
    for (const key of Object.keys(SAMPLES)) if (!routes.some((r) => r.key === key)) problems.push(`${key}: a sample for a route that does not exist`);
    // Paths the Node server answers before Astro: declared in src/server/raw-routes.ts (or by their route file).
    problems.push(...await rawRouteProblems(routes));
    expect(problems).toEqual([]);
  });

  it('answers every route × actor as declared', async () => {
    const cells = routes.flatMap((r) => methodsOf(r.access ?? {}).map(([method, decl]) => ({ r, method, decl })));
    const ordered = [...cells.filter((c) => !LAST.includes(c.r.key)), ...LAST.flatMap((k) => cells.filter((c) => c.r.key === k))];
    const failures: string[] = [];
    const table: string[] = [];
    let calls = 0;
    for (const { r, method, decl } of ordered) {
      const row: string[] = [];
      for (const actor of ORDER) {
        const sample = SAMPLES[r.key]![method]!(fx, actor);
        const res = await send(server.url, r.url, method, sample, tokens[actor]);
        calls++;
        const seen = classify(res);
        row.push(`${actor}=${seen.outcome}`);
        if (!matches(decl[actor], seen)) failures.push(`${method} ${r.key} as ${actor}: declared ${decl[actor]}, got ${seen.outcome} (HTTP ${seen.status}, code ${seen.code}: ${seen.msg})`);
        if (OUTSIDERS.includes(actor) && res.text.includes(PRIVATE)) failures.push(`${method} ${r.key} as ${actor}: the reply holds the first member's private text: ${res.text.slice(0, 200)}`);
      }
      table.push(`${method} ${r.key}: ${row.join(' ')}`);
    }
    if (failures.length) console.log(table.join('\n'));
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(600);
    expect(server.logs()).not.toMatch(/unhandled error/);
  }, scaled(120_000));

  it("leaves the first member's things as they were after the others tried", async () => {
    // The logout cells ended every session: the first member logs in again.
    const res = await postJson(server.url, '/api/user/checkIn', { tab: 'login', username: USERNAMES.member, password: PASSWORD, keep: false });
    const token = res.json<{ data: { userInfo: { token: string } } }>().data.userInfo.token;
    const get = async (path: string) => (await raw(server.url, path, { headers: { 'ba-user-token': token, 'think-lang': 'en' } })).json<{ code: number; data: Record<string, unknown> }>();
    const others = OUTSIDERS.filter((a) => a !== 'visitor');
    // Conversations: only the owner's own delete went through.
    const chats = (await get('/api/chat/list?limit=100')).data.list as { id: string; title: string }[];
    for (const a of ACTORS) expect(chats.some((c) => c.id === fx.chatOf[a]), `conversation kept for ${a}`).toBe(a !== 'member');
    // Private messages: neither deleted nor read by anyone else.
    const inbox: { id: number; read: boolean }[] = [];
    for (let page = 1; page <= 10; page++) {
      const list = (await get(`/api/interaction/messageList?tab=all&page=${page}`)).data.list as { id: number; read: boolean }[];
      if (!list.length) break;
      inbox.push(...list);
    }
    for (const a of others) {
      expect(inbox.some((m) => m.id === fx.messageOf[a]), `message kept for ${a}`).toBe(true);
      expect(inbox.find((m) => m.id === fx.unreadOf[a])?.read, `message unread for ${a}`).toBe(false);
    }
    expect(inbox.some((m) => m.id === fx.messageOf.member)).toBe(false);
    expect(inbox.find((m) => m.id === fx.unreadOf.member)?.read).toBe(true);
    // Posts: removed by the owner and by moderators only.
    for (const a of ['other', 'developer'] as const) {
      const post = await raw(server.url, `/api/ask/info?id=${fx.postOf[a]}`);
      expect(post.json<{ code: number }>().code, `post kept for ${a}`).toBe(1);
    }
    // Docs pages: only the owner and the administrators deleted theirs.
    const tree = JSON.stringify((await get(`/api/md/tree?book=${fx.book}`)).data.tree);
    for (const a of others) expect(tree, `page kept for ${a}`).toContain(fx.doomedPageOf[a]);
    expect(tree).not.toContain(fx.doomedPageOf.member);
  });

  it('refuses a custom group every route whose declared rule it lacks (a group holding only the reports rules)', async () => {
    // The logout cells ended every session: the administrator logs in again, makes the group and
    // moves a plain member into it, all through the console's API.
    const login = async (username: string): Promise<string> => {
      const res = await postJson(server.url, '/api/user/checkIn', { tab: 'login', username, password: PASSWORD, keep: false });
      return res.json<{ data: { userInfo: { token: string } } }>().data.userInfo.token;
    };
    const admin = await login(USERNAMES.admin);
    const call = async (path: string, body?: unknown) => (body === undefined
      ? await raw(server.url, path, { headers: { 'ba-user-token': admin, 'think-lang': 'en' } })
      : await postJson(server.url, path, body, { 'ba-user-token': admin, 'think-lang': 'en' })).json<{ code: number; msg: string; data: Record<string, unknown> }>();
    type Node = { id: number; name: string; children?: Node[] };
    const groups = (await call('/api/admin/groups')).data.list as { id: number; rules: string; tree: Node[] }[];
    const ids = new Map<string, number>();
    const walk = (nodes: Node[]): void => { for (const n of nodes) { ids.set(n.name, n.id); walk(n.children ?? []); } };
    walk(groups.find((g) => g.rules === '*')!.tree);
    const created = await call('/api/admin/groupCreate', { name: '举报组', name_en: 'Reporters', rules: ['admin/reports', 'ask/reports', 'ask/moderate'].map((n) => ids.get(n)).join(',') });
    expect(created.code, created.msg).toBe(1);
    const groupId = created.data.id as number;
    const custom = await login(CUSTOM_USERNAME);
    const me = (await raw(server.url, '/api/index/index?requiredLogin=1', { headers: { 'ba-user-token': custom } })).json<{ data: { userInfo: { id: number } } }>().data.userInfo.id;
    expect((await call('/api/admin/memberGroup', { id: me, group_id: groupId })).code).toBe(1);
    const held = new Set(['admin', 'admin/reports', 'ask', 'ask/reports', 'ask/moderate']);

    const cells = routes.flatMap((r) => methodsOf(r.access ?? {}).map(([method, decl]) => ({ r, method, decl })));
    const ordered = [...cells.filter((c) => !LAST.includes(c.r.key)), ...LAST.flatMap((k) => cells.filter((c) => c.r.key === k))];
    const failures: string[] = [];
    let refused = 0;
    for (const { r, method, decl } of ordered) {
      const rules = declaredRules(r.access);
      const denied = rules.length > 0 && !rules.some((rule) => held.has(rule));
      // It names what the moderator actor names: the same calls, from a group with fewer rules.
      const res = await send(server.url, r.url, method, SAMPLES[r.key]![method]!(fx, 'moderator'), custom);
      const seen = classify(res);
      const what = `${method} ${r.key} (rules ${rules.join('|') || 'none'}, moderator ${decl.moderator})`;
      if (denied) {
        refused++;
        if (seen.outcome !== 'denied') failures.push(`${what}: expected denied, got ${seen.outcome} (HTTP ${seen.status}, code ${seen.code}: ${seen.msg})`);
      } else if (seen.outcome === 'error' || (decl.moderator !== 'denied' && seen.outcome === 'denied')) {
        failures.push(`${what}: got ${seen.outcome} (HTTP ${seen.status}, code ${seen.code}: ${seen.msg})`);
      }
      if (res.text.includes(PRIVATE)) failures.push(`${what}: the reply holds the first member's private text`);
    }
    expect(failures).toEqual([]);
    // Member-center, forum, docs, chat, developer and other console routes: most of the API.
    expect(refused).toBeGreaterThan(60);
    expect(server.logs()).not.toMatch(/unhandled error/);
  }, scaled(120_000));
});
