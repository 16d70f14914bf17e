// The webhook module: every new post and reply (site events, delivered once from the site's
// outbox) is POSTed as JSON to the address an administrator set, signed with HMAC-SHA256 of the
// body under their secret (`x-atrium-signature: sha256=<hex>`). The address, the secret, what is
// sent and the hourly ping are site settings (`contributes.settings`, set in the console's Site
// modules section, read here as `ctx.settings`); the last 20 deliveries live in the module's own
// store, read by administrators at `/api/m/webhook/deliveries`. A failed delivery throws, so the
// site retries the event later (5 s, 30 s, 2 min, 10 min); a failed ping is shown in the console.
import { createHmac } from 'node:crypto';
import { defineModule, type JsonValue, type ModuleContext } from '../../sdk';

interface Delivery { at: number; event: string; id: number; status: number | null; error: string | null }

/** A delivery must finish well inside the site's 2 s budget for a module call. */
const TIMEOUT_MS = 1500;
const KEEP = 20;

async function remember(ctx: ModuleContext, d: Delivery): Promise<void> {
  const list = ((await ctx.store.get('deliveries')) as Delivery[] | null) ?? [];
  await ctx.store.set('deliveries', [d, ...list].slice(0, KEEP) as unknown as JsonValue);
}

/** POSTs `event` to the configured address (nothing when none is set); throws when it is not accepted. */
async function deliver(ctx: ModuleContext, event: string, payload: unknown, id: number): Promise<void> {
  const url = String(ctx.settings.url ?? '');
  const secret = String(ctx.settings.secret ?? '');
  if (!url) return;
  const body = JSON.stringify({ event, payload, sentAt: new Date().toISOString() });
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': `atrium-webhook/${ctx.version}` };
  if (secret) headers['x-atrium-signature'] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  let status: number | null = null;
  try {
    const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
    status = res.status;
    await res.body?.cancel();
    if (status < 200 || status >= 300) throw new Error(`the address answered ${status}`);
    await remember(ctx, { at: Date.now(), event, id, status, error: null });
  } catch (err) {
    const error = (err instanceof Error ? err.message : String(err)).slice(0, 200);
    await remember(ctx, { at: Date.now(), event, id, status, error });
    throw err;
  }
}

export default defineModule({
  hooks: {
    async onEvent(name, payload, ctx) {
      if (name === 'reply.created' && ctx.settings.send === 'posts') return;
      await deliver(ctx, name, payload, Number((payload as { id?: unknown }).id) || 0);
    },
    async onJob(name, ctx) {
      if (name !== 'ping' || ctx.settings.ping !== true) return;
      await deliver(ctx, 'ping', { text: ctx.t('ping.text'), locale: ctx.locale }, 0);
    },
  },
  routes: {
    'GET /deliveries': async (_req, ctx) => ({ body: ((await ctx.store.get('deliveries')) as JsonValue | null) ?? [] }),
  },
});
