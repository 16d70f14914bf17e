// The registry of streams sessions hold open (issue 24, findings 2 and 11(b)): which streams an end
// closes, an end that comes while a stream is being opened, the caps and the token's expiry.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionStreams, type CloseReason, type SessionRef } from '../../src/lib/server/auth/session-streams';

const inAnHour = (): number => Math.floor(Date.now() / 1000) + 3600;
const ref = (userId: number, family: string, seen = 0, expireTime = inAnHour()): SessionRef => ({ userId, family, tokenHash: `h-${family}`, expireTime, seen });

/** Registers a stream and records how it was closed. */
function open(registry: SessionStreams, r: SessionRef, opts: { capped?: boolean; address?: string } = {}): { closed: CloseReason[]; release: () => void } {
  const closed: CloseReason[] = [];
  const release = registry.register({ ref: r, capped: opts.capped ?? true, address: opts.address ?? '203.0.113.1', close: (reason) => closed.push(reason) });
  return { closed, release };
}

afterEach(() => { vi.useRealTimers(); });

describe('session streams', () => {
  it('an end of some families closes only their streams; an end of all but one keeps that one', () => {
    const registry = new SessionStreams({ perMember: 0, perAddress: 0 });
    const a1 = open(registry, ref(1, 'fa'));
    const a2 = open(registry, ref(1, 'fb'));
    const a3 = open(registry, ref(1, 'fc'));
    const other = open(registry, ref(2, 'fa'));
    expect(registry.end(1, { families: ['fa'] })).toBe(1);
    expect([a1.closed, a2.closed, a3.closed, other.closed]).toEqual([['session'], [], [], []]);
    expect(registry.end(1, { except: 'fb' })).toBe(1);
    expect([a2.closed, a3.closed]).toEqual([[], ['session']]);
    registry.end(1, { except: null });
    expect(a2.closed).toEqual(['session']);
    expect(other.closed).toEqual([]);
    expect(registry.count()).toBe(1);
  });

  it('a session without a family is known by its token', () => {
    const registry = new SessionStreams();
    const s = open(registry, ref(1, ''));
    registry.end(1, { families: ['token:h-'] });
    expect(s.closed).toEqual(['session']);
  });

  it('closes at once a stream whose token was read before its session ended, and only such a one', () => {
    const registry = new SessionStreams();
    const before = registry.epoch;
    registry.end(1, { families: ['fa'] });
    expect(open(registry, ref(1, 'fa', before)).closed).toEqual(['session']);
    expect(open(registry, ref(1, 'fb', before)).closed).toEqual([]);
    // Read after the end: the token lookup itself would have found no session.
    expect(open(registry, ref(1, 'fa', registry.epoch)).closed).toEqual([]);
  });

  it('closes a stream whose token was read before ends it no longer remembers', () => {
    vi.useFakeTimers();
    const registry = new SessionStreams();
    const before = registry.epoch;
    registry.end(9, { except: null });
    vi.advanceTimersByTime(6 * 60_000);
    registry.end(8, { except: null });
    expect(open(registry, ref(1, 'fa', before)).closed).toEqual(['session']);
  });

  it('releases a stream that ended on its own: an end later does not call it', () => {
    const registry = new SessionStreams();
    const s = open(registry, ref(1, 'fa'));
    s.release();
    registry.end(1, { except: null });
    expect(s.closed).toEqual([]);
    expect(registry.count(1)).toBe(0);
  });

  it('closes the oldest capped streams past the per-member and per-address caps; chat streams do not count', () => {
    const registry = new SessionStreams({ perMember: 2, perAddress: 3 });
    const chat = open(registry, ref(1, 'fa'), { capped: false });
    const m = [1, 2, 3].map(() => open(registry, ref(1, 'fa'), { address: '203.0.113.1' }));
    expect(m.map((s) => s.closed)).toEqual([['limit'], [], []]);
    expect(chat.closed).toEqual([]);
    const others = [2, 3].map((id) => open(registry, ref(id, 'fx'), { address: '203.0.113.1' }));
    // Four at the address: the oldest still open (the member's second) goes.
    expect(m.map((s) => s.closed)).toEqual([['limit'], ['limit'], []]);
    expect(others.map((s) => s.closed)).toEqual([[], []]);
    expect(open(registry, ref(4, 'fy'), { address: '203.0.113.2' }).closed).toEqual([]);
  });

  it('no cap when a cap is 0', () => {
    const registry = new SessionStreams({ perMember: 0, perAddress: 0 });
    const all = Array.from({ length: 50 }, () => open(registry, ref(1, 'fa')));
    expect(all.filter((s) => s.closed.length)).toHaveLength(0);
  });

  it('closes a stream when its access token expires, and refuses one already expired', () => {
    vi.useFakeTimers();
    const registry = new SessionStreams();
    const expires = Math.floor(Date.now() / 1000) + 5;
    const s = open(registry, ref(1, 'fa', 0, expires));
    vi.advanceTimersByTime(4000);
    expect(s.closed).toEqual([]);
    vi.advanceTimersByTime(1500);
    expect(s.closed).toEqual(['expired']);
    expect(open(registry, ref(1, 'fb', 0, Math.floor(Date.now() / 1000))).closed).toEqual(['expired']);
  });

  it('a tied body ends when the session ends, and cancels what it read', async () => {
    const registry = new SessionStreams();
    let canceled = false;
    const source = new ReadableStream<string>({
      start: (c) => { c.enqueue('first'); },
      cancel: () => { canceled = true; },
    });
    const reader = registry.tieStream(ref(1, 'fa'), '203.0.113.1', source).getReader();
    expect(await reader.read()).toEqual({ done: false, value: 'first' });
    const next = reader.read();
    registry.end(1, { families: ['fa'] });
    expect(await next).toEqual({ done: true, value: undefined });
    expect(canceled).toBe(true);
    expect(registry.count()).toBe(0);
  });

  it('a tied body that ends on its own is released', async () => {
    const registry = new SessionStreams();
    const source = new ReadableStream<string>({ start: (c) => { c.enqueue('all'); c.close(); } });
    const reader = registry.tieStream(ref(1, 'fa'), '203.0.113.1', source).getReader();
    expect((await reader.read()).value).toBe('all');
    expect((await reader.read()).done).toBe(true);
    expect(registry.count()).toBe(0);
  });
});
