import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The code a module host process runs before the module: it loads the module's server entry, answers
// the parent's calls and forwards the module's store operations. Kept as plain JavaScript text
// (not a file next to this one) so it survives the server bundle: the host writes it into its
// runtime folder, and Node lets a process read its own entry file under --permission, so the
// module's read allow-list stays its package and data folders. argv: entry path, uid, version,
// manifest path (its `contributes.i18n` strings are `ctx.t`).
// Protocol (structured clone over IPC):
//   parent → child  {t:'call', id, method, args, env: {settings, locale}}
//   child → parent  {t:'result', id, ok, value | error}
//   child → parent  {t:'kv', id, op, key?, value?, prefix?}  parent → child {t:'kv-reply', id, ok, value | error}
//   child → parent  {t:'ready', hooks, routes} once loaded, or {t:'load-error', message} before exiting.
export const BOOTSTRAP_SOURCE = String.raw`import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [entry, uid, version, manifestFile] = process.argv.slice(2);
let strings = {};
try { strings = JSON.parse(readFileSync(manifestFile, 'utf8')).contributes?.i18n ?? {}; } catch { strings = {}; }
const translate = (locale) => (key, values) => {
  const text = (strings[locale] && Object.hasOwn(strings[locale], key) ? strings[locale][key] : null) ?? (strings.en && Object.hasOwn(strings.en, key) ? strings.en[key] : key);
  return values ? String(text).replace(/\{(\w+)\}/g, (m, k) => (Object.hasOwn(values, k) ? String(values[k]) : m)) : String(text);
};
const send = (m) => { try { process.send(m); return true; } catch { return false; } };
const messageOf = (e) => String((e && typeof e === 'object' && 'message' in e) ? e.message : e).slice(0, 2000);
const kvPending = new Map();
let kvSeq = 0;
function kv(op, fields) {
  return new Promise((resolve, reject) => {
    const id = ++kvSeq;
    kvPending.set(id, { resolve, reject });
    if (!send({ t: 'kv', id, op, ...fields })) { kvPending.delete(id); reject(new Error('the site is not reachable')); }
  });
}
const store = Object.freeze({
  get: (key) => kv('get', { key }),
  set: (key, value) => kv('set', { key, value }).then(() => undefined),
  delete: (key) => kv('delete', { key }),
  list: (prefix = '') => kv('list', { prefix }),
});
let def = null;
// A render's context names its own language (the document's).
const withRender = (ctx, rc) => {
  const locale = rc && typeof rc.locale === 'string' ? rc.locale : ctx.locale;
  return { ...rc, ...ctx, locale, t: translate(locale) };
};
async function run(method, args, env) {
  const hooks = (def && def.hooks) || {};
  const locale = env && typeof env.locale === 'string' ? env.locale : 'zh-cn';
  const ctx = { uid, version, store, settings: Object.freeze({ ...(env && env.settings) }), locale, t: translate(locale) };
  if (method === 'render') {
    if (typeof hooks.render !== 'function') throw new Error('the module has no render hook');
    const out = await hooks.render(args[0], withRender(ctx, args[1]));
    if (typeof out !== 'string') throw new TypeError('render must return a string');
    return out;
  }
  if (method === 'markdown') {
    if (typeof hooks.markdown !== 'function') throw new Error('the module has no markdown hook');
    const items = args[0];
    const out = await hooks.markdown(items, withRender(ctx, args[1]));
    if (!Array.isArray(out) || out.length !== items.length || !out.every((x) => typeof x === 'string')) throw new TypeError('markdown must return one string per item');
    return out;
  }
  if (method === 'onEvent') {
    if (typeof hooks.onEvent !== 'function') throw new Error('the module has no onEvent hook');
    await hooks.onEvent(args[0], args[1], ctx);
    return null;
  }
  if (method === 'onJob') {
    if (typeof hooks.onJob !== 'function') throw new Error('the module has no onJob hook');
    await hooks.onJob(args[0], ctx);
    return null;
  }
  if (method === 'route') {
    const req = args[0];
    const routes = (def && def.routes) || {};
    const handler = Object.hasOwn(routes, req.method + ' ' + req.path) ? routes[req.method + ' ' + req.path] : null;
    if (typeof handler !== 'function') return { status: 404, body: null };
    const res = await handler(req, ctx);
    const status = res && Number.isInteger(res.status) && res.status >= 200 && res.status <= 599 ? res.status : 200;
    return { status, body: res && 'body' in res ? res.body : null };
  }
  throw new Error('unknown method ' + method);
}
process.on('message', (m) => {
  if (!m || typeof m !== 'object') return;
  if (m.t === 'call') {
    run(m.method, m.args, m.env).then(
      (value) => { if (!send({ t: 'result', id: m.id, ok: true, value })) send({ t: 'result', id: m.id, ok: false, error: 'the result cannot be sent to the site (not structured-cloneable)' }); },
      (e) => { send({ t: 'result', id: m.id, ok: false, error: messageOf(e) }); },
    );
  } else if (m.t === 'kv-reply') {
    const p = kvPending.get(m.id);
    if (!p) return;
    kvPending.delete(m.id);
    if (m.ok) p.resolve(m.value); else p.reject(new Error(m.error));
  }
});
process.on('disconnect', () => process.exit(0));
try {
  const mod = await import(pathToFileURL(entry).href);
  def = mod.default ?? mod;
  if (!def || typeof def !== 'object') throw new TypeError('the server entry must export an object (defineModule)');
  send({ t: 'ready', hooks: Object.keys(def.hooks || {}), routes: Object.keys(def.routes || {}) });
} catch (e) {
  process.send({ t: 'load-error', message: messageOf(e) }, () => process.exit(1));
}
`;

/**
 * Writes the bootstrap into `runtimeDir` (once per content: the name carries its hash) and returns
 * its path. The folder should belong to the site (not a shared /tmp path others can pre-create).
 */
export function writeBootstrap(runtimeDir: string): string {
  const hash = createHash('sha256').update(BOOTSTRAP_SOURCE).digest('hex').slice(0, 12);
  const file = join(runtimeDir, `module-host-${hash}.mjs`);
  mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
  let current: string | null = null;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = null;
  }
  if (current !== BOOTSTRAP_SOURCE) {
    rmSync(file, { force: true });
    writeFileSync(file, BOOTSTRAP_SOURCE, { mode: 0o444 });
  }
  return file;
}
