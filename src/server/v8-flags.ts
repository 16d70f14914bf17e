// The V8 flags the server process runs with, however it was started (`npm start`, systemd,
// compose, `node dist/atrium.mjs`). Imported first by main.ts: when a flag is missing, the process
// replaces itself (execve: same pid, nothing stays resident) with one that has it, before it
// loads anything else.
//   --max-semi-space-size=8  V8 sizes the young generation from the machine's memory: on a host
//       with a few GB it grows to 2 × 64 MB per thread (main thread and PGlite's worker), which
//       was the largest single item of the idle footprint. 8 MB semi-spaces cost a few more
//       scavenges of short-lived request garbage and keep RSS ~100 MB lower per thread.
//   --liftoff-only  PGlite is a 9 MB WebAssembly module; once its functions turn hot V8 recompiles
//       them with its optimising compiler (TurboFan), which took ~500 MB for a few seconds after
//       every start and was the restart's peak. Baseline (Liftoff) code runs PGlite's queries
//       somewhat slower (see bench/RESULTS.md, footprint) but keeps the peak near the idle size.
//   --expose-gc  lets large uploads free their buffers at once (see upload.ts).
// A flag given explicitly (on the command line or in NODE_OPTIONS) wins: `--max-semi-space-size=N`
// or `--no-liftoff-only` trade memory for throughput on a large host.
export const SERVER_V8_FLAGS = ['--max-semi-space-size=8', '--liftoff-only', '--expose-gc'];

/** The flags of SERVER_V8_FLAGS this process was started without. */
export function missingV8Flags(execArgv: readonly string[], nodeOptions: string): string[] {
  const name = (flag: string): string => flag.split('=')[0]!.replaceAll('_', '-').replace(/^--no-/, '--');
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].filter(Boolean).map(name);
  return SERVER_V8_FLAGS.filter((flag) => !given.includes(name(flag)));
}

function reexecWithFlags(): void {
  // process.execve exists from Node 22.15 / 23.11 and only on POSIX; elsewhere run as started.
  if (typeof process.execve !== 'function' || process.env.ATRIUM_V8_FLAGS_APPLIED === '1') return;
  const missing = missingV8Flags(process.execArgv, process.env.NODE_OPTIONS ?? '');
  if (missing.length === 0) return;
  process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)], {
    ...process.env,
    // Guards against a loop should a flag not show up in execArgv after the exec.
    ATRIUM_V8_FLAGS_APPLIED: '1',
  });
}

reexecWithFlags();
