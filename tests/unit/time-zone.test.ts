import { describe, expect, it } from 'vitest';
import { formatDate, isTimeZone, zoneLabel } from '../../src/lib/shared/date';
import { newOrderNo } from '../../src/lib/server/market/orders';
import { ProfileInput } from '../../src/lib/shared/validation/account';

describe('one clock', () => {
  const at = new Date('2026-11-25T17:30:05Z');

  it('knows IANA zones and refuses anything else', () => {
    expect(isTimeZone('Asia/Shanghai')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });

  it('names a zone with its offset at that moment', () => {
    expect(zoneLabel('Asia/Shanghai', at)).toBe('Asia/Shanghai (UTC+8)');
    expect(zoneLabel('UTC', at)).toBe('UTC');
    expect(zoneLabel('Europe/London', at)).toBe('Europe/London (UTC)');
    expect(zoneLabel('America/New_York', new Date('2026-07-01T00:00:00Z'))).toBe('America/New_York (UTC-4)');
  });

  it('dates an order number on the same clock as its paid time', () => {
    const no = newOrderNo(at, 'Asia/Shanghai');
    expect(no).toMatch(/^20261126013005\d{6}$/);
    expect(no.slice(0, 8)).toBe(formatDate(at, 'yyyymmdd', 'Asia/Shanghai'));
    expect(newOrderNo(at, 'UTC').slice(0, 14)).toBe('20261125173005');
  });

  it('lets a member pick a zone or follow the site, and refuses unknown zones', () => {
    const base = { nickname: 'a' };
    expect(ProfileInput.safeParse({ ...base, time_zone: 'Europe/Berlin' }).success).toBe(true);
    expect(ProfileInput.safeParse({ ...base, time_zone: '' }).success).toBe(true);
    const bad = ProfileInput.safeParse({ ...base, time_zone: 'Nowhere/Land' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('validation.timeZone');
  });
});
