const pad = (n: number): string => String(n).padStart(2, '0');

/** Reads a timestamp the way the spec does: 10 digits are seconds, anything else milliseconds. */
export function toDate(value: number | string | Date): Date {
  if (value instanceof Date) return value;
  const n = typeof value === 'string' ? Number(value) : value;
  if (!Number.isFinite(n)) return new Date(NaN);
  return new Date(String(Math.trunc(Math.abs(n))).length === 10 ? n * 1000 : n);
}

/**
 * Formats a date with the spec's tokens (default `yyyy-mm-dd hh:MM:ss`): yyyy, mm (month), dd,
 * hh (24 h), MM (minutes), ss. An optional IANA time zone picks the wall clock; default local time.
 */
export function formatDate(value: number | string | Date, format = 'yyyy-mm-dd hh:MM:ss', timeZone?: string): string {
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return '';
  const parts = timeZone ? zonedParts(date, timeZone) : {
    yyyy: date.getFullYear(), mm: date.getMonth() + 1, dd: date.getDate(),
    hh: date.getHours(), MM: date.getMinutes(), ss: date.getSeconds(),
  };
  return format.replace(/yyyy|mm|dd|hh|MM|ss/g, (token) => {
    const v = parts[token as keyof typeof parts];
    return token === 'yyyy' ? String(v) : pad(v);
  });
}

/** Building an Intl formatter costs far more than using one: one per time zone, kept. */
const zoned = new Map<string, Intl.DateTimeFormat>();

function zonedParts(date: Date, timeZone: string): Record<'yyyy' | 'mm' | 'dd' | 'hh' | 'MM' | 'ss', number> {
  let fmt = zoned.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    zoned.set(timeZone, fmt);
  }
  const parts = fmt.formatToParts(date);
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { yyyy: get('year'), mm: get('month'), dd: get('day'), hh: get('hour'), MM: get('minute'), ss: get('second') };
}

/** The zone every time is shown in when neither the site nor the member chose one. */
export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';

/** True for an IANA time zone this runtime knows (`Asia/Shanghai`, `UTC`, `Europe/Berlin`). */
export function isTimeZone(value: string): boolean {
  if (!value || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** `Asia/Shanghai (UTC+8)`: a zone named the way a reader recognises it, at the given moment. */
export function zoneLabel(timeZone: string, at: Date = new Date()): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'shortOffset' }).formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value ?? '';
  const offset = name.replace('GMT', 'UTC').replace(/^UTC(?:[+-]0)?$/, 'UTC') || 'UTC';
  return offset === timeZone ? timeZone : `${timeZone} (${offset})`;
}
