// Who may call an API route, declared next to the route (`export const access = routeAccess({...})`)
// and checked by tests/integration/authz-matrix.test.ts for every route, method and actor; the
// `input` schema is what tests/integration/fuzz.test.ts generates hostile input from.
import type { z } from 'zod';

/**
 * The actors the matrix calls every route as. `member` is the first member, who owns the things the
 * calls name (post, message, conversation, order, module…); `other` is another plain member naming
 * the first member's things; `developer` an approved developer (not the owner) doing the same;
 * `moderator` a group holding only the moderation rules; `admin` the administrators' group (`*`).
 */
export const ACTORS = ['visitor', 'member', 'other', 'developer', 'moderator', 'admin'] as const;
export type Actor = (typeof ACTORS)[number];

/**
 * What a call answers:
 * - `ok`: code 1 (or the route's own success: a file, a stream);
 * - `login`: code 303 `need login`;
 * - `guest`: code 303 `logged in` (calls only visitors make: login, register);
 * - `denied`: code 401, the caller's group lacks the rule or the role;
 * - `notfound`: code 0 or HTTP 404: the thing named is not the caller's, answered as if it did not
 *   exist, with nothing of it in the reply;
 * - `refused`: code 0 for a reason other than who asks (a wrong code, a site setting): the call got
 *   past its permission check.
 */
export const OUTCOMES = ['ok', 'login', 'guest', 'denied', 'notfound', 'refused'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export type Cells = Record<Actor, Outcome>;
export type MethodAccess = Cells & {
  /** The schema the method reads its input (query string or JSON body) with, for the fuzzer. */
  input?: z.ZodType;
};
export type AccessMethod = 'GET' | 'POST' | 'ALL';
export const ACCESS_METHODS: readonly AccessMethod[] = ['GET', 'POST', 'ALL'];
export type RouteAccess = Partial<Record<AccessMethod, MethodAccess>> & {
  /**
   * The rule (user_rule name) a logged-in caller's group must hold, or several of which it must hold
   * one: the server middleware answers 401 before the handler runs when it holds none. Visitors go
   * on to the handler (which asks them to log in, or serves what visitors may have).
   */
  rule?: string | readonly string[];
};

/** Declares a route's access; typed so that every method names all six actors. */
export function routeAccess(spec: RouteAccess): RouteAccess {
  return spec;
}

/** The rules a route declares (none: any member may call it). */
export function declaredRules(access: RouteAccess | undefined): readonly string[] {
  const rule = access?.rule;
  return rule === undefined ? [] : typeof rule === 'string' ? [rule] : rule;
}

/** Anyone, logged in or not. */
export const ANYONE: Cells = { visitor: 'ok', member: 'ok', other: 'ok', developer: 'ok', moderator: 'ok', admin: 'ok' };
/** Any logged-in member, on their own data (the session says whose). */
export const MEMBERS: Cells = { ...ANYONE, visitor: 'login' };
/** The first member's own thing: everyone else is answered as if it did not exist. */
export const OWNER: Cells = { visitor: 'login', member: 'ok', other: 'notfound', developer: 'notfound', moderator: 'notfound', admin: 'notfound' };
/** Only visitors (login, register). */
export const VISITORS: Cells = { visitor: 'ok', member: 'guest', other: 'guest', developer: 'guest', moderator: 'guest', admin: 'guest' };
/**
 * Approved developers only (the first member is one too; the `developer` actor is another one, so
 * the first member's modules are not theirs).
 */
export const DEVELOPERS: Cells = { visitor: 'login', member: 'ok', other: 'denied', developer: 'ok', moderator: 'denied', admin: 'denied' };
/** A console section or a rule only administrators hold. */
export const ADMINS: Cells = { visitor: 'login', member: 'denied', other: 'denied', developer: 'denied', moderator: 'denied', admin: 'ok' };
/** A rule moderators hold too (reports, post moderation). */
export const MODERATORS: Cells = { ...ADMINS, moderator: 'ok' };

/** `cells` with every `ok` answered `outcome` instead: e.g. `as(MEMBERS, 'refused')` for a call every member gets past the check of, but whose sample a wrong code refuses. */
export function as(cells: Cells, outcome: Outcome): Cells {
  return Object.fromEntries(Object.entries(cells).map(([actor, o]) => [actor, o === 'ok' ? outcome : o])) as Cells;
}
