// Upload validation rules (spec §5 "Upload"): pure, shared by the streaming handler and tests.

export type UploadCheckKey = 'upload.incomplete' | 'upload.typeNotAllowed' | 'upload.tooLarge';

export interface UploadFileInfo {
  /** Original file name as sent by the client. */
  name: string | null | undefined;
  /** Bytes; null/undefined when unknown (0 counts as missing). */
  size: number | null | undefined;
  /** MIME type declared by the client (may carry parameters). */
  mimetype: string | null | undefined;
}

export interface UploadRules {
  maxSize: number;
  /** Comma list or array; entries with or without a leading dot, any case. */
  allowedSuffixes: string | readonly string[];
  /** Comma list or array, may be empty. */
  allowedMimeTypes: string | readonly string[];
}

/** Splits a comma list (or takes an array), trims and lower-cases, drops empty entries. */
export function parseList(value: string | readonly string[]): string[] {
  const items = typeof value === 'string' ? value.split(',') : value;
  return items.map((s) => s.trim().toLowerCase()).filter(Boolean);
}

/**
 * The lower-cased extension of a file name without the dot, as BuildAdmin computes it: anything
 * that is not 1 to 20 ASCII letters or digits (no extension at all included) becomes `file`.
 */
export function fileSuffix(name: string): string {
  const base = name.replace(/^.*[\\/]/, '');
  const dot = base.lastIndexOf('.');
  const ext = dot >= 0 ? base.slice(dot + 1).toLowerCase() : '';
  return /^[a-z0-9]{1,20}$/.test(ext) ? ext : 'file';
}

/** `Image/PNG; charset=x` → `image/png`. */
export function normalizeMime(value: string | null | undefined): string {
  return (value ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * null when the file may be stored, else the message key of the first rule it breaks:
 * incomplete (no name, or no size: an empty file counts as missing) → type (suffix in the list, or MIME type in the list) → size.
 */
export function checkUpload(file: UploadFileInfo, rules: UploadRules): UploadCheckKey | null {
  if (!file.name || !file.size || !Number.isFinite(file.size) || file.size < 0) return 'upload.incomplete';
  if (!isTypeAllowed(file.name, file.mimetype, rules)) return 'upload.typeNotAllowed';
  if (file.size > rules.maxSize) return 'upload.tooLarge';
  return null;
}

/** Type rule alone (the handler applies it as soon as the part headers arrive, before the body). */
export function isTypeAllowed(name: string, mimetype: string | null | undefined, rules: Pick<UploadRules, 'allowedSuffixes' | 'allowedMimeTypes'>): boolean {
  const suffixes = parseList(rules.allowedSuffixes).map((s) => s.replace(/^\.+/, ''));
  if (suffixes.includes(fileSuffix(name))) return true;
  const mime = normalizeMime(mimetype);
  return mime !== '' && parseList(rules.allowedMimeTypes).includes(mime);
}
