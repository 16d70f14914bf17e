// What the chat API handlers share: who asks.
import type { APIContext } from 'astro';
import { requestIp } from '../http';
import { linkFor } from '../../shared/hosts';
import type { Asker } from './reply';

export function askerOf(ctx: APIContext): Asker {
  const row = ctx.locals.session?.row;
  return {
    userId: row?.id ?? 0,
    groupId: row?.groupId ?? 0,
    ip: requestIp(ctx),
    locale: ctx.locals.apiLocale,
    link: (path) => linkFor(path, ctx.locals.host),
  };
}
