// The V8 flags the server process runs with, however it was started (`npm start`, systemd,
// compose, `node dist/atrium.mjs`). reexec.ts, imported first by the entry (entry.ts), applies them: when a flag
// is missing, the process replaces itself (execve: same pid, nothing stays resident) with one that
// has it, before it loads anything else.
//   --max-semi-space-size=4  V8 sizes the young generation from the machine's memory: on a host
//       with a few GB it grows to 2 × 64 MB per thread (main thread and PGlite's worker), which
//       was the largest single item of the idle footprint. 4 MB semi-spaces cost a few more
//       scavenges of short-lived request garbage and keep RSS ~100 MB lower per thread.
//   --expose-gc  lets large uploads free their buffers at once (see upload.ts).
//   --liftoff-only, on a small host running PGlite only (serverV8Flags): PGlite is a 9 MB
//       WebAssembly module; once its functions turn hot V8 recompiles them with its optimising
//       compiler, and one of them, PostgreSQL's SQL parser (raw_parser), takes ~600 MB of compiler
//       memory for a third of a second, within a second or two of every start (PGlite's own startup
//       SQL makes it hot; V8 13.6 has no way to keep one function on baseline code, bench/RESULTS.md).
//       Baseline (Liftoff) code avoids that peak (first start 830 → 310 MB) but runs PGlite's
//       queries ~1.6× slower: worth it where the peak could exhaust the host, not on a large one.
// A flag given explicitly (on the command line or in NODE_OPTIONS) wins: `--max-semi-space-size=N`
// trades memory for throughput on a large host.
export const SERVER_V8_FLAGS = ['--max-semi-space-size=4', '--expose-gc'];

// The C library's allocator settings, read from the environment when the process starts (so they
// come with the re-exec too). MALLOC_MMAP_THRESHOLD_: glibc gives an allocation above its mmap
// threshold a mapping of its own, returned to the system when freed, but raises the threshold to the
// size of each such block freed (up to 32 MB); from then on ArrayBuffers, PGlite's unpacked template
// and V8's compiler zones come from its arenas, whose freed middle stays resident. A fixed 64 KB
// threshold stops the raising: PGlite idle RSS ~440 → ~290 MB after a first start, ~340 → ~265 MB after
// a restart, ~510 → ~255 MB after a load (bench/RESULTS.md, 2026-11-26). Other C libraries ignore it.
export const SERVER_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '65536' };

/** The entries of SERVER_ENV missing from `env` (a value the operator set wins). */
export function missingServerEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(SERVER_ENV).filter(([key]) => env[key] === undefined || env[key] === ''));
}

/** Below this much memory (the machine's, or a container's or service's limit) PGlite runs on baseline code. */
export const SMALL_HOST_BYTES = 2 * 1024 ** 3;

/** The server's flags on this host: SERVER_V8_FLAGS, and --liftoff-only for PGlite on a small host. */
export function serverV8Flags(env: NodeJS.ProcessEnv, memoryBytes: number): string[] {
  return !env.DATABASE_URL && memoryBytes < SMALL_HOST_BYTES ? [...SERVER_V8_FLAGS, '--liftoff-only'] : SERVER_V8_FLAGS;
}

/** The memory this process may use: the machine's, or less under a cgroup limit (containers, systemd MemoryMax). */
export function hostMemoryBytes(total: number, constrained: number | undefined): number {
  return constrained && constrained > 0 ? Math.min(constrained, total) : total;
}

/** The flags of `flags` this process was started without (a flag given with another value or negated counts as given). */
export function missingV8Flags(execArgv: readonly string[], nodeOptions: string, flags: readonly string[] = SERVER_V8_FLAGS): string[] {
  const name = (flag: string): string => flag.split('=')[0]!.replaceAll('_', '-').replace(/^--no-/, '--');
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].filter(Boolean).map(name);
  return flags.filter((flag) => !given.includes(name(flag)));
}
