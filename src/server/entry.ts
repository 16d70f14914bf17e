// dist/atrium.mjs, the server's entry: applies the server's V8 flags and C library settings
// (reexec.ts) before anything else loads, then runs the server (main.ts, built as
// dist/atrium-main.mjs). They are two files because an ES module's static imports all load and run
// before its own code: with the re-exec inside the bundled server, PGlite, shiki, the AI SDK and the
// rest loaded first (~0.9 s and ~350 MB resident on a 2-core host) only to be thrown away by the exec.
import './reexec';

await import(new URL('./atrium-main.mjs', import.meta.url).href);
