// The storage key of an upload from the `upload_save_name` template (reference §4): pure.
import { randomInt } from 'node:crypto';
import { fileSuffix } from './check';

export const DEFAULT_SAVE_NAME = '/storage/{topic}/{year}{mon}{day}/{fileName}{fileSha1}{.suffix}';
/** Column `attachment.url` is varchar(255). */
const MAX_URL = 255;
const MAX_SEGMENT = 120;

export interface SaveNameInput {
  topic: string;
  originalName: string;
  sha1: string;
  now: Date;
  /** IANA zone for the date placeholders; UTC when absent or unknown. */
  timeZone?: string;
  /** `length` alphanumeric characters; crypto-random by default. */
  random?: (length: number) => string;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomAlnum(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM[randomInt(ALNUM.length)];
  return out;
}

/** Original name minus suffix, whitespace and `:@#?&/=',+` removed, first 15 characters. */
export function fileNamePart(originalName: string): string {
  const base = originalName.normalize('NFC').replace(/^.*[\\/]/, '');
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : dot === 0 ? '' : base;
  return Array.from(stem.replace(/[\s:@#?&/=',+]/gu, '')).slice(0, 15).join('');
}

function dateParts(now: Date, timeZone: string | undefined): Record<'year' | 'mon' | 'day' | 'hour' | 'min' | 'sec', string> {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-GB', {
      timeZone: timeZone || 'UTC', hourCycle: 'h23',
      year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    }).formatToParts(now);
  } catch {
    return dateParts(now, 'UTC');
  }
  const get = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '00';
  return { year: get('year').padStart(4, '0'), mon: get('month'), day: get('day'), hour: get('hour'), min: get('minute'), sec: get('second') };
}

/**
 * One path segment reduced to ASCII letters, digits, `_`, `.`, `-` and CJK letters (Han, kana,
 * Hangul); leading dots go (no `.`/`..` and no hidden files such as `.tmp`). May come back empty.
 */
export function sanitizeSegment(segment: string): string {
  const kept = segment.normalize('NFC').replace(/[^A-Za-z0-9_.\-\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu, '');
  return Array.from(kept.replace(/^\.+/, '')).slice(0, MAX_SEGMENT).join('');
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\.?\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * Fills every placeholder, then rebuilds the path from sanitised segments: the result always
 * starts with `/storage/`, has no empty, `.` or `..` segment, no backslash and nothing outside
 * the safe character set, so it cannot leave the storage folder whatever the template or file
 * name. A template that leaves no file name falls back to the default one.
 */
export function buildSaveName(template: string, input: SaveNameInput): string {
  const random = input.random ?? randomAlnum;
  const suffix = fileSuffix(input.originalName);
  const topic = sanitizeSegment(input.topic) || 'default';
  const values: Record<string, string> = {
    topic,
    ...dateParts(input.now, input.timeZone),
    random: random(8),
    random32: random(32),
    fileName: fileNamePart(input.originalName),
    suffix,
    '.suffix': `.${suffix}`,
    fileSha1: input.sha1.toLowerCase().replace(/[^0-9a-f]/g, ''),
  };
  const filled = fill(template || DEFAULT_SAVE_NAME, values);
  const segments = filled.split(/[\\/]+/).map(sanitizeSegment).filter(Boolean);
  if (segments[0] !== 'storage') segments.unshift('storage');
  const url = `/${segments.join('/')}`;
  if (segments.length < 2 || url.length > MAX_URL) {
    if (template === DEFAULT_SAVE_NAME) throw new Error('upload: cannot build a save name');
    return buildSaveName(DEFAULT_SAVE_NAME, input);
  }
  return url;
}
