import { and, desc, eq } from 'drizzle-orm';
import { userSignIn } from '../db/schema';
import type { Runtime } from '../runtime';
import { formatDate } from '../../shared/date';
import { adjustScore } from './ledger';
import { siteTimeZone } from '../site/time-zone';

export interface SignInStatus {
  signedToday: boolean;
  streak: number;
  reward: number;
}

async function context(rt: Runtime): Promise<{ today: string; yesterday: string; reward: number }> {
  const tz = await siteTimeZone(rt.site);
  return {
    today: formatDate(Date.now(), 'yyyy-mm-dd', tz),
    yesterday: formatDate(Date.now() - 86_400_000, 'yyyy-mm-dd', tz),
    reward: Math.max(0, Number(await rt.site.get('sign_in_score', '10')) || 0),
  };
}

export async function signInStatus(rt: Runtime, userId: number): Promise<SignInStatus> {
  const { today, yesterday, reward } = await context(rt);
  const [last] = await rt.db.select().from(userSignIn).where(eq(userSignIn.userId, userId)).orderBy(desc(userSignIn.day)).limit(1);
  const live = last && (last.day === today || last.day === yesterday);
  return { signedToday: last?.day === today, streak: live ? last.streak : 0, reward };
}

/**
 * Checks the member in for today (site time zone). The unique (member, day) key lets exactly one
 * of any number of concurrent calls insert the row and earn the points.
 */
export async function signIn(rt: Runtime, userId: number): Promise<{ added: boolean; streak: number; score: number }> {
  const { today, yesterday, reward } = await context(rt);
  const result = await rt.db.transaction(async (tx) => {
    const [prev] = await tx.select().from(userSignIn).where(and(eq(userSignIn.userId, userId), eq(userSignIn.day, yesterday)));
    const streak = (prev?.streak ?? 0) + 1;
    const inserted = await tx.insert(userSignIn).values({ userId, day: today, streak, score: reward, createTime: Math.floor(Date.now() / 1000) })
      .onConflictDoNothing().returning({ id: userSignIn.id });
    if (inserted.length === 0) {
      const [row] = await tx.select().from(userSignIn).where(and(eq(userSignIn.userId, userId), eq(userSignIn.day, today)));
      return { added: false, streak: row?.streak ?? streak, score: 0 };
    }
    if (reward > 0) await adjustScore(tx, userId, reward, `Daily check-in ${today}`, { key: 'user.ledger.memo.checkIn', params: { date: today } });
    return { added: true, streak, score: reward };
  });
  if (result.added) await rt.sessions.forgetUser(userId);
  return result;
}
