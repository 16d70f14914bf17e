// Side effect only, imported first by the entry (entry.ts): re-executes the process with the
// server's V8 flags for this host (serverV8Flags) and SERVER_ENV.
import { totalmem } from 'node:os';
import { hostMemoryBytes, missingServerEnv, missingV8Flags, serverV8Flags } from './v8-flags';

export function reexecWithFlags(): void {
  // process.execve exists from Node 22.15 / 23.11 and only on POSIX; elsewhere run as started.
  const applied = process.env.ATRIUM_V8_FLAGS_APPLIED === '1';
  delete process.env.ATRIUM_V8_FLAGS_APPLIED; // not inherited by processes the server starts
  if (typeof process.execve !== 'function' || applied) return;
  const flags = serverV8Flags(process.env, hostMemoryBytes(totalmem(), process.constrainedMemory?.()));
  const missing = missingV8Flags(process.execArgv, process.env.NODE_OPTIONS ?? '', flags);
  const env = missingServerEnv(process.env);
  if (missing.length === 0 && Object.keys(env).length === 0) return;
  process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)], {
    ...process.env,
    ...env,
    // Guards against a loop should a flag not show up in execArgv after the exec.
    ATRIUM_V8_FLAGS_APPLIED: '1',
  });
}

reexecWithFlags();
