import { describe, expect, it } from 'vitest';
import { monthGrid, shiftMonth } from '../../src/lib/server/account/sign-in-month';

describe('the check-in calendar grid', () => {
  it('places the 1st under its weekday, Monday first, and knows each month\'s length', () => {
    expect(monthGrid('2026-11')).toEqual({ firstWeekday: 6, length: 30 }); // a Sunday
    expect(monthGrid('2026-06')).toEqual({ firstWeekday: 0, length: 30 }); // a Monday
    expect(monthGrid('2024-02')).toEqual({ firstWeekday: 3, length: 29 }); // leap year, a Thursday
    expect(monthGrid('2025-02').length).toBe(28);
    expect(monthGrid('2026-12').length).toBe(31);
  });

  it('moves across year ends', () => {
    expect(shiftMonth('2026-01', -1)).toBe('2025-12');
    expect(shiftMonth('2026-12', 1)).toBe('2027-01');
    expect(shiftMonth('2026-05', 0)).toBe('2026-05');
  });
});
