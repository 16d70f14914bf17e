// What the chat API handlers share: who asks, and the send call (answered by the Astro route and,
// without Astro, by the Node server: src/server/chat-send.ts).
import type { APIContext } from 'astro';
import type { Runtime } from '../runtime';
import { limitReply, parseWith, requestIp } from '../http';
import { linkFor, type HostContext } from '../../shared/hosts';
import { CHAT_KEY, CHAT_KEY_HEADER } from '../../shared/chat';
import { SendInput } from '../../shared/validation/chat';
import type { Locale } from '../../i18n';
import type { user } from '../db/schema';
import { sendReply, type Asker, type ReplyStream } from './reply';
import { chatSettings } from './settings';

export function askerOf(ctx: APIContext): Asker {
  return askerFrom(ctx.locals.session?.row ?? null, requestIp(ctx), ctx.locals.apiLocale, ctx.locals.host, ctx.request.headers.get(CHAT_KEY_HEADER));
}

/**
 * The asker of a request: its member (null: a visitor), address, API language, host, and the
 * visitor's key as sent (`x-chat-key`; one that is not a key counts as none).
 */
export function askerFrom(row: Pick<typeof user.$inferSelect, 'id' | 'groupId'> | null, ip: string, locale: Locale, host: HostContext, key: string | null): Asker {
  return {
    userId: row?.id ?? 0,
    groupId: row?.groupId ?? 0,
    ip,
    key: !row && key && CHAT_KEY.test(key) ? key : null,
    locale,
    link: (path) => linkFor(path, host),
  };
}

/**
 * `POST /api/chat/send` once the request is authenticated: the chat's rate limits, then the input
 * (`readRaw`: the body as readRaw gives it), then the reply's UI message stream (a refusal by a
 * rate limit is a Response).
 */
export async function sendChat(runtime: Runtime, asker: Asker, readRaw: () => Promise<unknown>): Promise<Response | ReplyStream> {
  const settings = await chatSettings(runtime.site);
  const limited = (asker.userId ? await limitReply(runtime.limiter, asker.locale, `chat:send:u${asker.userId}`, settings.rateMember, 60) : null)
    ?? await limitReply(runtime.limiter, asker.locale, `chat:send:ip:${asker.ip}`, settings.rateIp, 60);
  if (limited) return limited;
  const input = parseWith(SendInput, await readRaw(), asker.locale);
  return sendReply(runtime, asker, input);
}
