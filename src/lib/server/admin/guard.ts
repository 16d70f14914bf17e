import type { APIContext, AstroGlobal } from 'astro';
import { AppError, requestIp } from '../http';
import { Code } from '../../shared/codes';
import { requireUser } from '../auth/guard';
import type { Runtime } from '../runtime';
import type { Locale } from '../../i18n';
import type { UserRow } from '../account/users';
import { adminSections, findSection, type AdminSection } from './sections';
import type { Actor } from './audit';

type Named = { name: string; children?: Named[] };
const names = (nodes: readonly Named[], into = new Set<string>()): Set<string> => {
  for (const n of nodes) { into.add(n.name); names(n.children ?? [], into); }
  return into;
};

/** The console sections a group may use (empty: the console is not for them). */
export async function allowedSections(runtime: Runtime, groupId: number, locale: Locale): Promise<AdminSection[]> {
  const held = names((await runtime.rules.forGroup(groupId, locale)) as Named[]);
  return adminSections().filter((s) => held.has(s.rule));
}

/**
 * The member behind a console API call, as an audit actor: 303 without a session, 401 unless their
 * group holds the section's rule. Disabled members never get here (their sessions end).
 */
export async function requireSection(ctx: APIContext, section: string): Promise<{ member: UserRow; actor: Actor }> {
  const member = requireUser(ctx);
  const def = findSection(section);
  if (!def) throw new Error(`unknown admin section ${section}`);
  const allowed = await allowedSections(ctx.locals.runtime, member.groupId, ctx.locals.locale);
  if (!allowed.some((s) => s.name === section)) throw new AppError('api.noPermission', { code: Code.noPermission });
  return { member, actor: actorOf(ctx, member) };
}

/** A member acting from the console or another operator page (the market review), as an audit actor. */
export function actorOf(ctx: APIContext, member: UserRow): Actor {
  return { id: member.id, username: member.username, ip: requestIp(ctx) };
}

/** For console pages: the sections the visitor may open, or null when they may open none. */
export async function pageSections(astro: AstroGlobal): Promise<AdminSection[] | null> {
  const session = astro.locals.session;
  if (!session) return null;
  const sections = await allowedSections(astro.locals.runtime, session.row.groupId, astro.locals.locale);
  return sections.length ? sections : null;
}
