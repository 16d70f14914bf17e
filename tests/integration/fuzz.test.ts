// Fuzzing every API route (issue 17) with fast-check: input generated from the route's declared zod
// schema (`access.<METHOD>.input`), its sample call with hostile values in each field, and raw
// attacks on the request itself (invalid UTF-8, truncated JSON, wrong content types, query-string
// arrays, NUL bytes). Sent as an actor who gets past the route's permission check, seeded and
// bounded. Every reply is the JSON envelope (or the route's own file or stream), never a 5xx, and
// no reply shows SQL, a stack, a file path or an internal error name; the server logs no unhandled error.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccessMethod, type Actor, type MethodAccess } from '../../src/lib/shared/access';
import { freshPostgres, raw, type RawResponse, type TestServer } from '../helpers/server';
import { startAuthzServer, type AuthzServer, type AuthzSite } from '../helpers/authz-site';
import { SAMPLES, type Sample } from '../helpers/route-samples';
import { head, methodsOf, send, type ApiRoute } from '../helpers/api-routes';
import { multipart, png } from '../helpers/files';
import { arbitraryOf, hostile, HOSTILE_STRINGS } from '../helpers/zod-arbitrary';
import { scaled } from '../helpers/time-scale.mjs';

const CASES = Number(process.env.FUZZ_CASES ?? 24);
const SEED = Number(process.env.FUZZ_SEED ?? 17);
// More cases, another seed or PostgreSQL for a longer hunt: FUZZ_CASES=200 FUZZ_SEED=5 FUZZ_POSTGRES=1.

let server: TestServer;
let fx: AuthzSite;
let routes: ApiRoute[];
let tokens: Partial<Record<Actor, string>>;
let site: AuthzServer | undefined;

beforeAll(async () => {
  // FUZZ_POSTGRES=1: against PostgreSQL (TEST_DATABASE_URL) instead of PGlite.
  const databaseUrl = process.env.FUZZ_POSTGRES === '1' ? await freshPostgres() : undefined;
  // Small enough that an oversize body is met too (413 with the envelope).
  site = await startAuthzServer('fuzz-', { API_RATE_LIMIT: '1000000', MAX_BODY_BYTES: String(256 * 1024), ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
  ({ server, fx, routes, tokens } = site);
}, scaled(120_000));

afterAll(async () => {
  await site?.close();
});

/** Replies that are not JSON when they succeed: a CSV, a package, an event stream, "no reply running". */
const FILE_ROUTES = new Set(['/api/account/balanceExport', '/api/modules/download', '/api/chat/send', '/api/chat/stream', '/api/interaction/stream']);
/** Calls whose success ends the caller's session or takes the administrators' rights away: sent without a session, or last. */
const AS_VISITOR = new Set(['/api/user/logout', '/api/common/refreshToken']);
const LAST = new Set(['/api/admin/groups', '/api/admin/memberStatus', '/api/admin/memberGroup', '/api/admin/memberReset', '/api/account/changePassword', '/api/modules/uninstall']);

/** What must never reach a client: SQL, stacks, paths, internal error names. */
const LEAK = /(\bat [\w$.<>]+ \(|node:internal|node_modules|\/work\/|\/src\/|file:\/\/|\.(?:ts|mjs|js):\d+|\bselect\b[^"]{0,100}\bfrom\b|\binsert into\b|\bdelete from\b|syntax error|violates|duplicate key|relation "|column "|pglite|drizzle|ECONN|TypeError|ReferenceError|RangeError|Cannot read prop|is not a function|\[object Object\])/i;

/** The first actor (the owner first) the route lets past its permission check. */
function actorFor(key: string, decl: MethodAccess): Actor {
  if (AS_VISITOR.has(key)) return 'visitor';
  for (const a of ['member', 'admin', 'moderator', 'other', 'visitor'] as const) if (decl[a] === 'ok' || decl[a] === 'refused') return a;
  return 'admin';
}

type Attack =
  | { kind: 'json'; value: unknown }
  | { kind: 'body'; body: string | Buffer; type?: string }
  | { kind: 'query'; qs: string }
  | { kind: 'upload'; qs: string; body: Buffer; type: string }
  | { kind: 'headers'; headers: Record<string, string> };

/** Hostile session, language and forwarding headers on the sample call. */
const HEADER_ATTACKS: Attack[] = [
  { kind: 'headers', headers: { 'ba-user-token': 'x'.repeat(4000) } },
  { kind: 'headers', headers: { 'ba-user-token': "' OR 1=1 --", 'think-lang': '../../etc/passwd' } },
  { kind: 'headers', headers: { 'ba-user-token': 'eyJhbGciOiJub25lIn0.eyJ1aWQiOjJ9.', 'think-lang': 'xx' } },
  { kind: 'headers', headers: { cookie: 'ba-user-token=%ff%00; ba-lang=__proto__; ba-user-refresh-token=a; ba-user-refresh-token=b' } },
  { kind: 'headers', headers: { cookie: `ba-user-token=${'a'.repeat(3000)}`, 'accept-language': 'zz;q=abc, en;q=NaN' } },
  { kind: 'headers', headers: { 'x-forwarded-for': '1.2.3.4, <script>', 'x-forwarded-proto': 'gopher', 'last-event-id': '-1' } },
];

/** encodeURIComponent, with a lone surrogate sent as the bytes it would be (invalid UTF-8). */
const enc = (s: string): string => {
  try { return encodeURIComponent(s); } catch { return [...s].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join(''); }
};

const qsOf = (value: unknown): string => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `q=${enc(String(value))}`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) parts.push(`${enc(k)}=${enc(typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item))}`);
  }
  return parts.join('&');
};

/** The sample with one field (or an added one) set to a hostile value. */
function mutated(base: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = [...Object.keys(base), '__proto__', 'constructor', 'id', 'user_id', 'extra'];
  return fc.tuple(fc.constantFrom(...keys), hostile()).map(([k, v]) => {
    const copy: Record<string, unknown> = JSON.parse(JSON.stringify(base));
    Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
    return copy;
  });
}

const BAD_UTF8 = Buffer.concat([Buffer.from('{"content":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]), Buffer.from('","id":"\xff"}', 'latin1')]);

/** Uploads: malformed multipart bodies and file parts. */
function multipartAttacks(base: Sample): fc.Arbitrary<Attack> {
  const qs = qsOf(base.query ?? {});
  const file = base.file!;
  const form = (f: Partial<typeof file>, fields: Record<string, string> = {}): Attack => {
    const m = multipart({ ...file, ...f }, fields);
    return { kind: 'upload', qs, body: m.body, type: m.type };
  };
  const good = multipart(file);
  const boundary = good.type.split('boundary=')[1]!;
  return fc.constantFrom<Attack>(
    form({ name: '../../../etc/passwd' }),
    form({ name: 'a\u0000.png' }),
    form({ name: `${'x'.repeat(5000)}.png` }),
    form({ name: '<img src=x onerror=alert(1)>.png' }),
    form({ name: 'a.php.png', type: 'application/x-php' }),
    form({ data: Buffer.alloc(0) }),
    form({ data: Buffer.from('GIF89a not really') }),
    form({ data: png(1, 1).subarray(0, 30) }),
    form({ field: 'other' }),
    form({}, { topic: '../../x', driver: 'cos' }),
    { kind: 'upload', qs, body: good.body.subarray(0, good.body.length - 10), type: good.type },
    { kind: 'upload', qs, body: good.body, type: 'multipart/form-data; boundary=wrong' },
    { kind: 'upload', qs, body: good.body, type: 'multipart/form-data' },
    { kind: 'upload', qs, body: Buffer.concat([good.body.subarray(0, good.body.length - boundary.length - 8), good.body]), type: good.type },
    { kind: 'upload', qs: `${qs}&driver=%00&topic=${'t'.repeat(300)}`, body: good.body, type: good.type },
    { kind: 'upload', qs: 'driver[]=local&driver[]=cos', body: good.body, type: good.type },
    { kind: 'upload', qs, body: Buffer.from('{"file":"a.png"}'), type: 'application/json' },
  );
}

function rawAttacks(method: AccessMethod, base: Sample): fc.Arbitrary<Attack> {
  return fc.oneof({ weight: 3, arbitrary: requestAttacks(method, base) }, { weight: 1, arbitrary: fc.constantFrom(...HEADER_ATTACKS) });
}

function requestAttacks(method: AccessMethod, base: Sample): fc.Arbitrary<Attack> {
  if (base.file) return multipartAttacks(base);
  const body = JSON.stringify(base.body ?? {});
  const qs = qsOf(base.query ?? {});
  if (method === 'GET') {
    return fc.constantFrom<Attack>(
      { kind: 'query', qs: `${qs}&${qs}` },
      { kind: 'query', qs: qs.replace(/=/g, '[]=') },
      { kind: 'query', qs: qs.replace(/=/g, '[a][b]=') },
      { kind: 'query', qs: `${qs}&%ff=%ff&x=%e2%82` },
      { kind: 'query', qs: `${qs}&id=%00&page=%00` },
      { kind: 'query', qs: qs.replace(/=([^&]*)/g, '=$1%00') },
      { kind: 'query', qs: `${qs}&__proto__[admin]=1&constructor[prototype][x]=1` },
      { kind: 'query', qs: `q=${'x'.repeat(6000)}&${qs}` },
      { kind: 'query', qs: '%' },
    );
  }
  return fc.constantFrom<Attack>(
    { kind: 'body', body: BAD_UTF8 },
    { kind: 'body', body: body.slice(0, Math.max(1, body.length - 3)) },
    { kind: 'body', body: `${body}${body}` },
    { kind: 'body', body: 'null' },
    { kind: 'body', body: '"just a string"' },
    { kind: 'body', body: '1e999' },
    { kind: 'body', body: `[${body}]` },
    { kind: 'body', body: body.replace(/"([^"]*)"/, '"$1\\u0000"') },
    { kind: 'body', body: body.replace(/"([^"]*)"/, '"$1\\ud800"') },
    { kind: 'body', body: `{"__proto__":{"admin":true},${body.slice(1)}` },
    { kind: 'body', body: '{"a":'.repeat(3000) },
    { kind: 'body', body: `${'['.repeat(60_000)}${']'.repeat(60_000)}` },
    { kind: 'body', body: `${'{"a":'.repeat(20_000)}"\\u0000"${'}'.repeat(20_000)}` },
    { kind: 'body', body: 'x'.repeat(300 * 1024) },
    { kind: 'body', body, type: 'text/plain' },
    { kind: 'body', body: 'a=1&b=2', type: 'application/x-www-form-urlencoded' },
    { kind: 'body', body: '--x\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--x--', type: 'multipart/form-data; boundary=x' },
    { kind: 'body', body: Buffer.from(body, 'utf16le'), type: 'application/json; charset=utf-16' },
    { kind: 'body', body, type: 'application/xml' },
  );
}

function casesFor(r: ApiRoute, method: AccessMethod, decl: MethodAccess, actor: Actor): Attack[] {
  const base = SAMPLES[r.key]![method]!(fx, actor);
  const baseValue = (method === 'GET' ? base.query : base.body) ?? {};
  const fromSchema = decl.input ? arbitraryOf(decl.input) : hostile();
  const arb = fc.oneof(
    { weight: 3, arbitrary: fromSchema.map((value): Attack => ({ kind: 'json', value })) },
    { weight: 2, arbitrary: mutated(baseValue as Record<string, unknown>).map((value): Attack => ({ kind: 'json', value })) },
    { weight: base.file ? 8 : 2, arbitrary: rawAttacks(method, base) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS).map((s): Attack => ({ kind: 'json', value: Object.fromEntries(Object.keys(baseValue as object).map((k) => [k, s])) })) },
  );
  let seed = SEED;
  for (const ch of `${method} ${r.key}`) seed = (seed * 31 + ch.charCodeAt(0)) | 0;
  return fc.sample(arb, { seed, numRuns: CASES });
}

function request(r: ApiRoute, method: AccessMethod, attack: Attack, token: string | undefined): Promise<RawResponse> {
  const headers: Record<string, string> = { 'think-lang': 'en', ...(token ? { 'ba-user-token': token } : {}) };
  const get = method === 'GET';
  const stream = SAMPLES[r.key]![method]!(fx, 'member').stream;
  if (attack.kind === 'headers') {
    const sample = SAMPLES[r.key]![method]!(fx, 'member');
    return send(server.url, r.url, method, sample, undefined, { 'think-lang': 'en', ...attack.headers });
  }
  if (stream) return head(server.url, `${r.url}?${attack.kind === 'query' ? attack.qs : qsOf(attack.kind === 'json' ? attack.value : {})}`, headers);
  if (attack.kind === 'upload') return raw(server.url, `${r.url}?${attack.qs}`, { method: 'POST', headers: { ...headers, 'content-type': attack.type }, body: attack.body });
  if (attack.kind === 'query') return raw(server.url, `${r.url}?${attack.qs}`, { headers });
  if (attack.kind === 'json') {
    if (get) return raw(server.url, `${r.url}?${qsOf(attack.value)}`, { headers });
    return raw(server.url, r.url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(attack.value) ?? 'null' });
  }
  return raw(server.url, r.url, { method: get ? 'GET' : 'POST', headers: { ...headers, 'content-type': attack.type ?? 'application/json' }, body: attack.body });
}

const describeAttack = (a: Attack): string => {
  if (a.kind === 'headers') return JSON.stringify(a.headers).slice(0, 160);
  const text = a.kind === 'json' ? JSON.stringify(a.value) : a.kind === 'query' ? `?${a.qs}` : a.kind === 'upload' ? `?${a.qs} ${a.type} ${a.body.toString('latin1')}` : `${a.type ?? 'json'} ${Buffer.isBuffer(a.body) ? a.body.toString('latin1') : a.body}`;
  return (text ?? String(text)).slice(0, 160);
};

/** What is wrong with a reply, or null. */
function problem(r: ApiRoute, res: RawResponse): string | null {
  if (res.status >= 500) return `HTTP ${res.status}: ${res.text.slice(0, 200)}`;
  const type = String(res.headers['content-type'] ?? '');
  if (!type.includes('application/json')) {
    if (FILE_ROUTES.has(r.key) && (res.status === 200 || res.status === 204)) return null;
    return `not an envelope (HTTP ${res.status}, ${type}): ${res.text.slice(0, 120)}`;
  }
  let body: Record<string, unknown>;
  try { body = res.json(); } catch { return `invalid JSON: ${res.text.slice(0, 120)}`; }
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'code,data,msg,time' || typeof body.code !== 'number' || typeof body.msg !== 'string' || !Number.isInteger(body.time)) return `not an envelope: ${res.text.slice(0, 160)}`;
  if (body.code !== 1 && LEAK.test(res.text)) return `leaks internals: ${res.text.slice(0, 300)}`;
  // A success may name a file (the administrators' backup): only a stack is wrong there.
  if (body.code === 1 && /(\bat [\w$.<>]+ \(\S+:\d+:\d+\)|node:internal)/.test(res.text)) return `leaks a stack: ${res.text.slice(0, 300)}`;
  return null;
}

describe('fuzzing every API route', () => {
  it(`answers ${CASES} generated and hostile calls per route and method with an envelope, never a 5xx or a leak`, async () => {
    const jobs = routes.flatMap((r) => methodsOf(r.access ?? {}).map(([method, decl]) => ({ r, method, decl, actor: actorFor(r.key, decl) })));
    jobs.sort((a, b) => Number(LAST.has(a.r.key)) - Number(LAST.has(b.r.key)));
    const failures: string[] = [];
    const kinds = new Set<string>();
    let sent = 0;
    const outcomes = new Map<string, number>();
    const run = async (job: (typeof jobs)[number]): Promise<void> => {
      for (const attack of casesFor(job.r, job.method, job.decl, job.actor)) {
        const res = await request(job.r, job.method, attack, tokens[job.actor]);
        sent++;
        const code = String(res.headers['content-type'] ?? '').includes('json') ? (() => { try { return res.json().code; } catch { return 'bad'; } })() : 'file';
        outcomes.set(`${res.status}/${code}`, (outcomes.get(`${res.status}/${code}`) ?? 0) + 1);
        const p = problem(job.r, res);
        // One example of each kind of problem per route.
        const kind = `${job.method} ${job.r.url} ${p?.slice(0, 40)}`;
        if (p && !kinds.has(kind)) {
          kinds.add(kind);
          failures.push(`${job.method} ${job.r.url} as ${job.actor} with ${describeAttack(attack)} → ${p}`);
        }
      }
    };
    // A few routes at a time; the last ones alone, in order.
    const early = jobs.filter((j) => !LAST.has(j.r.key));
    for (let i = 0; i < early.length; i += 4) await Promise.all(early.slice(i, i + 4).map(run));
    for (const job of jobs.filter((j) => LAST.has(j.r.key))) await run(job);
    console.log(`fuzz: ${sent} calls, HTTP status/code: ${[...outcomes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ×${n}`).join(', ')}`);
    const unhandled = server.logs().split('\n').filter((l) => /unhandled error/.test(l));
    expect(failures).toEqual([]);
    expect(unhandled.slice(0, 20).map((l) => l.slice(0, 400))).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(jobs.length * CASES);
  }, scaled(240_000));
});
