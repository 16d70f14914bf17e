// The operator CLI (the built dist/cli.mjs) as a test runs it: a child process with the site's
// environment, its exit status and output collected.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, TMP } from './paths';

export interface CliResult { status: number | null; stdout: string; stderr: string }

/** A runner of `atrium <args>` against the site `env` names (DATA_DIR, DATABASE_URL, REDIS_URL…). */
export function cliRunner(env: Record<string, string>): (...args: string[]) => Promise<CliResult> {
  return (...args) => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/cli.mjs'), ...args], { env: { ...(process.env as Record<string, string>), ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', ...env }, cwd: TMP });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
