// The upload group's strings in both languages: small, and every uploading page needs them.
import zh from '../../i18n/zh-cn/upload';
import en from '../../i18n/en/upload';
import { pageLocale } from '../../i18n/client';
import { interpolate } from '../../i18n/types';

export type UploadKey = keyof typeof zh;

export function tu(key: UploadKey, values?: Record<string, string | number>): string {
  return interpolate((pageLocale() === 'en' ? en : zh)[key], values);
}

/** `1.5 MB`, `320 KB`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** `1:05:09`, `3:07`, `12 s`. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
