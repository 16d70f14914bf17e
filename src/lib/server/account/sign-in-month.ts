// The check-in page's calendar: one month of a member's check-ins in the site's time zone.
import { and, between, eq } from 'drizzle-orm';
import { userSignIn } from '../db/schema';
import type { Runtime } from '../runtime';
import { formatDate } from '../../shared/date';

export interface SignInDay { day: string; score: number; streak: number }

export interface SignInMonth {
  /** `yyyy-mm` */
  month: string;
  /** `yyyy-mm-dd`, the site's today. */
  today: string;
  /** Weekday of the 1st, Monday = 0. */
  firstWeekday: number;
  length: number;
  days: SignInDay[];
  /** The months to link to (`yyyy-mm`), or null where there is nothing to see. */
  prev: string | null;
  next: string | null;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** `yyyy-mm` moved by `delta` months. */
export function shiftMonth(month: string, delta: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + delta, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The grid of one month: where the 1st falls (Monday first) and how many days it has. */
export function monthGrid(month: string): { firstWeekday: number; length: number } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return { firstWeekday: (new Date(Date.UTC(y, m - 1, 1)).getUTCDay() + 6) % 7, length: new Date(Date.UTC(y, m, 0)).getUTCDate() };
}

/**
 * The member's check-ins of `wanted` (`yyyy-mm`; the current month when absent, malformed, in the
 * future or before the member joined).
 */
export async function signInMonth(rt: Runtime, userId: number, joinTime: number, wanted: string | null): Promise<SignInMonth> {
  const tz = await rt.site.get('time_zone', 'Asia/Shanghai');
  const today = formatDate(Date.now(), 'yyyy-mm-dd', tz);
  const current = today.slice(0, 7);
  const joined = joinTime > 0 ? formatDate(joinTime, 'yyyy-mm-dd', tz).slice(0, 7) : current;
  const month = wanted && MONTH.test(wanted) && wanted <= current && wanted >= joined ? wanted : current;
  const days = await rt.db.select({ day: userSignIn.day, score: userSignIn.score, streak: userSignIn.streak }).from(userSignIn)
    .where(and(eq(userSignIn.userId, userId), between(userSignIn.day, `${month}-01`, `${month}-31`))).orderBy(userSignIn.day);
  return {
    month, today, ...monthGrid(month), days,
    prev: month > joined ? shiftMonth(month, -1) : null,
    next: month < current ? shiftMonth(month, 1) : null,
  };
}
