// Unfinished uploads remembered in localStorage (at most 50, for 30 days) so that a reload, or a
// crash of the browser, resumes them when the same file is chosen again.
import { forgetResume, parseResume, pruneResume, rememberResume, type ResumeRecord } from '../../shared/upload-queue';

export const RESUME_KEY = 'atrium-upload-resume';

function storage(): Storage | null {
  try { return typeof localStorage === 'undefined' ? null : localStorage; } catch { return null; }
}

function read(): ResumeRecord[] {
  return pruneResume(parseResume(storage()?.getItem(RESUME_KEY) ?? null), Date.now());
}

function write(records: ResumeRecord[]): void {
  try { storage()?.setItem(RESUME_KEY, JSON.stringify(records)); } catch { /* storage full or off: no resume */ }
}

export function findResume(fingerprint: string, driver: string): ResumeRecord | null {
  return read().find((r) => r.fingerprint === fingerprint && r.driver === driver) ?? null;
}

export function saveResume(record: ResumeRecord): void {
  write(rememberResume(read(), record, Date.now()));
}

export function forgetResumeRecord(fingerprint: string): void {
  write(forgetResume(read(), fingerprint));
}
