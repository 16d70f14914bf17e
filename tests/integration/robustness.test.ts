// Failure paths that only show under load or on unusual requests: a URL no route matches must be
// served by the server's own runtime (never a second database opened in the same process), and
// two sign-ups racing for one name end with one member and a clear message.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, isUniqueViolation } from '../../src/lib/server/account/users';
import { AppError } from '../../src/lib/server/http';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

let srv: InProcessServer;
beforeAll(async () => { srv = await startInProcess(); }, scaled(60_000));
afterAll(async () => { await srv?.stop(); });

const openFiles = (): number => readdirSync('/proc/self/fd').length;

describe('unmatched URLs', () => {
  it('answer the 404 page from the running server without opening the database again', async () => {
    await raw(srv.url, '/md');
    const before = openFiles();
    for (let i = 0; i < 3; i++) {
      const res = await raw(srv.url, `/no-such-page-${i}`, { headers: { cookie: 'ba-lang=en' } });
      expect(res.status).toBe(404);
      expect(res.text).toContain(`Page Not Found: /no-such-page-${i}`);
    }
    // A second PGlite on the data directory holds dozens of files; a request's own sockets a few.
    expect(openFiles() - before).toBeLessThan(15);
  });
});

describe('unique violations', () => {
  it('are recognised through the ORM\'s wrapping, so a sign-up race reports the taken name', async () => {
    const results = await Promise.allSettled([1, 2, 3].map(() => createUser(srv.runtime.db, { username: 'racer', password: 'racer123' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x): x is PromiseRejectedResult => x.status === 'rejected')) {
      expect(r.reason).toBeInstanceOf(AppError);
      expect((r.reason as AppError).key).toBe('account.usernameTaken');
    }
    expect(isUniqueViolation(new Error('x', { cause: Object.assign(new Error('dup'), { code: '23505' }) }))).toBe(true);
    expect(isUniqueViolation(new Error('duplicate key value violates unique constraint'))).toBe(false);
  });
});
