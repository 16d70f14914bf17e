// Pieces every input schema shares: the range of an `integer` column and the characters text may hold.
import { z } from 'zod';

/** Largest value of a PostgreSQL `integer` (serial) column: every id, page and limit stays within it. */
export const INT_MAX = 2_147_483_647;

/** C0 controls except tab, line feed and carriage return, DEL and C1 controls: PostgreSQL refuses NUL, nothing shows the rest. */
export const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u;

/** Invisible characters that change how a name reads: bidi overrides and isolates, zero-width and other format characters. */
export const NAME_SPOOF_CHARS = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFF8]/u;

/** A row id from the query string or JSON: a whole number 1…INT_MAX. */
export const idSchema = z.coerce.number({ error: 'validation.required' }).int({ error: 'validation.required' }).positive({ error: 'validation.required' }).max(INT_MAX);

/**
 * The path (`a.b.0`) of the first string in `value` that holds a control character; null when
 * none. Keys count too. Every API input is checked with it before its schema (http.ts readRaw).
 */
export function findControlChars(value: unknown, path: readonly (string | number)[] = [], depth = 0): string | null {
  if (typeof value === 'string') return CONTROL_CHARS.test(value) ? (path.join('.') || '_') : null;
  if (depth > 20 || value === null || typeof value !== 'object') return null;
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [k, v] of entries) {
    if (typeof k === 'string' && CONTROL_CHARS.test(k)) return [...path, k.replace(CONTROL_CHARS, '?')].join('.');
    const found = findControlChars(v, [...path, k], depth + 1);
    if (found) return found;
  }
  return null;
}

/** Whether a string holds no control characters (tab, new line and carriage return allowed). */
export function noControlChars(value: string): boolean {
  return !CONTROL_CHARS.test(value);
}
