import { describe, expect, it } from 'vitest';
import { greetingKey } from '../../src/lib/shared/greeting';
import { formatDate, toDate } from '../../src/lib/shared/date';
import { translator } from '../../src/lib/i18n';

describe('greeting by hour (spec §8)', () => {
  it.each([
    [0, 'greeting.lateNight'], [4, 'greeting.lateNight'], [5, 'greeting.earlyMorning'], [8, 'greeting.earlyMorning'],
    [9, 'greeting.morning'], [11, 'greeting.morning'], [12, 'greeting.noon'], [13, 'greeting.noon'],
    [14, 'greeting.afternoon'], [17, 'greeting.afternoon'], [18, 'greeting.evening'], [23, 'greeting.evening'],
  ] as const)('hour %i → %s', (hour, key) => {
    expect(greetingKey(hour)).toBe(key);
  });

  it('speaks both languages', () => {
    expect(translator('en', 'common')('greeting.lateNight')).toBe('Late night, pay attention to your body!');
    expect(translator('zh-cn', 'common')(greetingKey(3))).toBe('夜深了，注意身体哦！');
  });
});

describe('dates', () => {
  it('reads 10-digit timestamps as seconds and others as milliseconds', () => {
    expect(toDate(1700000000).getTime()).toBe(1700000000000);
    expect(toDate('1700000000').getTime()).toBe(1700000000000);
    expect(toDate(1700000000123).getTime()).toBe(1700000000123);
  });

  it('formats yyyy-mm-dd hh:MM:ss by default, in a given time zone', () => {
    expect(formatDate(1700000000, undefined, 'UTC')).toBe('2023-11-14 22:13:20');
    expect(formatDate(1700000000, undefined, 'Asia/Shanghai')).toBe('2023-11-15 06:13:20');
    expect(formatDate(1700000000, 'yyyy/mm/dd', 'UTC')).toBe('2023/11/14');
  });

  it('gives an empty string for an invalid date', () => {
    expect(formatDate('not a date')).toBe('');
  });
});
