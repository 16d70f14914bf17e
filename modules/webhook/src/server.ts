// The webhook module: every new post and reply (site events, delivered once from the site's
// outbox) is POSTed as JSON to the address an administrator set, signed with HMAC-SHA256 of the
// body under their secret (`x-atrium-signature: sha256=<hex>`). Its settings and its last 20
// deliveries live in the module's own store; administrators read and change them through the
// module's routes (`/api/m/webhook/config`, `/api/m/webhook/deliveries`). A failed delivery throws,
// so the site retries it later (5 s, 30 s, 2 min, 10 min).
import { createHmac } from 'node:crypto';
import { defineModule, type JsonValue, type ModuleStore } from '../../sdk';

interface Config { url: string; secret: string }
interface Delivery { at: number; event: string; id: number; status: number | null; error: string | null }

/** A delivery must finish well inside the site's 2 s budget for a module call. */
const TIMEOUT_MS = 1500;
const KEEP = 20;

async function configOf(store: ModuleStore): Promise<Config> {
  const c = (await store.get('config')) as Partial<Config> | null;
  return { url: typeof c?.url === 'string' ? c.url : '', secret: typeof c?.secret === 'string' ? c.secret : '' };
}

/** An http(s) address without credentials, or '' to send nothing; null when it is neither. */
function checkedUrl(value: unknown): string | null {
  if (value === '' || value === undefined || value === null) return '';
  if (typeof value !== 'string' || value.length > 500) return null;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password ? url.toString() : null;
  } catch {
    return null;
  }
}

async function remember(store: ModuleStore, d: Delivery): Promise<void> {
  const list = ((await store.get('deliveries')) as Delivery[] | null) ?? [];
  await store.set('deliveries', [d, ...list].slice(0, KEEP) as unknown as JsonValue);
}

export default defineModule({
  hooks: {
    async onEvent(name, payload, ctx) {
      const { url, secret } = await configOf(ctx.store);
      if (!url) return;
      const body = JSON.stringify({ event: name, payload, sentAt: new Date().toISOString() });
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': `atrium-webhook/${ctx.version}` };
      if (secret) headers['x-atrium-signature'] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      const id = Number((payload as { id?: unknown }).id) || 0;
      let status: number | null = null;
      try {
        const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
        status = res.status;
        await res.body?.cancel();
        if (status < 200 || status >= 300) throw new Error(`the address answered ${status}`);
        await remember(ctx.store, { at: Date.now(), event: name, id, status, error: null });
      } catch (err) {
        const error = (err instanceof Error ? err.message : String(err)).slice(0, 200);
        await remember(ctx.store, { at: Date.now(), event: name, id, status, error });
        throw err;
      }
    },
  },
  routes: {
    'GET /config': async (_req, ctx) => {
      const { url, secret } = await configOf(ctx.store);
      return { body: { url, hasSecret: secret !== '' } };
    },
    'POST /config': async (req, ctx) => {
      const input = (req.body ?? {}) as { url?: unknown; secret?: unknown };
      const url = checkedUrl(input.url);
      if (url === null) return { status: 400, body: { field: 'url', problem: 'an http(s) address without user or password' } };
      const current = await configOf(ctx.store);
      const secret = input.secret === undefined ? current.secret : typeof input.secret === 'string' && input.secret.length <= 200 ? input.secret : null;
      if (secret === null) return { status: 400, body: { field: 'secret', problem: 'text of at most 200 characters' } };
      await ctx.store.set('config', { url, secret });
      return { body: { url, hasSecret: secret !== '' } };
    },
    'GET /deliveries': async (_req, ctx) => ({ body: ((await ctx.store.get('deliveries')) as JsonValue | null) ?? [] }),
  },
});
