// The math module through the module host (issue 26 budgets): a markdown render through the host
// adds p95 ≤ 5 ms for a document with 10 formulas; a module host stays ≤ 60 MB resident while running.
// Builds modules/math as `npm run build` does, unpacks it, registers it with the real ModuleHost
// (src/lib/server/modules/host, bundled here with esbuild) and calls its `markdown` hook: once cold,
// then BENCH_MATH_CALLS times (default 1000) after a warm-up. Prints the cold start, the per-call
// p50/p95/p99, the same 10 formulas rendered in this process (what temml itself costs), and the
// host's VmRSS/VmHWM after loading and after the run.
// BENCH_MATH_NODE=<executable> runs the host with another Node (e.g. a script that adds V8 flags
// and execs node, to try host flags: bench/RESULTS.md, "math module").
// Usage: node scripts/node.mjs node bench/module-math.mjs
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TMP = join(ROOT, 'bench', '.tmp', 'module-math');
const CALLS = Number(process.env.BENCH_MATH_CALLS) || 1000;
const BUDGET_P95_MS = 5;
const BUDGET_RSS_MB = 60;

/** A document's 10 formulas: inline, display and fenced, from E=mc² to a matrix and an aligned block. */
const DOC = [
  { kind: 'inline', src: 'E=mc^2' },
  { kind: 'inline', src: '\\frac{a}{b} + \\sqrt{x^2+y^2}' },
  { kind: 'inline', src: '\\alpha_1, \\dots, \\alpha_n' },
  { kind: 'block', src: '\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}' },
  { kind: 'block', src: '\\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}' },
  { kind: 'block', src: '\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}^{-1} = \\frac{1}{ad-bc}\\begin{pmatrix} d & -b \\\\ -c & a \\end{pmatrix}' },
  { kind: 'fence', src: '\\begin{aligned} f(x) &= (x+1)^2 \\\\ &= x^2 + 2x + 1 \\end{aligned}' },
  { kind: 'inline', src: '\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1' },
  { kind: 'block', src: 'f(x) = \\begin{cases} x & x \\ge 0 \\\\ -x & x < 0 \\end{cases}' },
  { kind: 'inline', src: '\\hat{\\theta} = \\operatorname{arg\\,max}_\\theta \\; \\mathcal{L}(\\theta)' },
];

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const mem = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1]) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
};

rmSync(TMP, { recursive: true, force: true });
mkdirSync(TMP, { recursive: true });
// The host and the test helpers that build and unpack a module, bundled (they are TypeScript).
const lib = join(TMP, 'lib.mjs');
await build({
  stdin: {
    contents: [
      "export { ModuleHost } from './src/lib/server/modules/host/host';",
      "export { MemoryKvBackend } from './src/lib/server/modules/host/kv';",
      "export { unpackZip } from './tests/helpers/module-build';",
    ].join('\n'),
    resolveDir: ROOT, loader: 'ts', sourcefile: 'bench-module-math.ts',
  },
  outfile: lib, bundle: true, platform: 'node', format: 'esm', target: 'node22', packages: 'external', logLevel: 'warning',
  // The build script stays where it is (it finds modules/ from its own location).
  plugins: [{
    name: 'build-modules-in-place',
    setup(b) {
      b.onResolve({ filter: /build-modules\.mjs$/ }, () => ({ path: pathToFileURL(join(ROOT, 'scripts', 'build-modules.mjs')).href, external: true }));
    },
  }],
});
const { ModuleHost, MemoryKvBackend, unpackZip } = await import(pathToFileURL(lib).href);
const { buildModule } = await import('../scripts/build-modules.mjs');

mkdirSync(join(TMP, 'dist'));
const built = await buildModule(join(ROOT, 'modules', 'math'), { outDir: join(TMP, 'dist') });
const pkg = join(TMP, 'pkg');
await unpackZip(built.zip, pkg);
console.log(`math ${built.version}: ${built.bytes} bytes, sha256 ${built.sha256}`);

// temml in this process, for comparison: what the formulas cost without a host.
const local = (await import(pathToFileURL(join(pkg, 'server.mjs')).href)).default;
for (let i = 0; i < 200; i++) local.hooks.markdown(DOC);
const localTimes = [];
for (let i = 0; i < CALLS; i++) {
  const t = performance.now();
  local.hooks.markdown(DOC);
  localTimes.push(performance.now() - t);
}
localTimes.sort((a, b) => a - b);

const host = new ModuleHost({
  kv: new MemoryKvBackend(), runtimeDir: join(TMP, 'run'), onOutput: () => undefined, ...(process.env.BENCH_MATH_NODE ? { execPath: process.env.BENCH_MATH_NODE } : {}),
});
host.register({ uid: 'math', version: built.version, packageDir: pkg, dataDir: join(TMP, 'data'), serverEntry: 'server.mjs', hooks: ['markdown'] });
const ctx = { kind: 'post', locale: 'en' };
try {
  const t0 = performance.now();
  const first = await host.call('math', 'markdown', [DOC, ctx]);
  const coldMs = performance.now() - t0;
  if (first.length !== DOC.length || !first.every((h) => h.startsWith('<math'))) throw new Error(`unexpected output: ${first.join('\n')}`);
  const pid = host.runningPids()[0];
  const loaded = mem(pid);
  for (let i = 0; i < 200; i++) await host.call('math', 'markdown', [DOC, ctx]);
  const times = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await host.call('math', 'markdown', [DOC, ctx]);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const after = mem(pid);
  const f = (n) => n.toFixed(2);
  console.log(`cold start + first call: ${coldMs.toFixed(0)} ms`);
  console.log(`document of 10 formulas, ${CALLS} calls through the host: p50 ${f(pct(times, 50))} ms, p95 ${f(pct(times, 95))} ms, p99 ${f(pct(times, 99))} ms`);
  console.log(`the same in this process (temml alone):       p50 ${f(pct(localTimes, 50))} ms, p95 ${f(pct(localTimes, 95))} ms`);
  console.log(`host resident: ${f(loaded.rss)} MB after the first call; ${f(after.rss)} MB after ${CALLS + 200} calls (peak VmHWM ${f(after.hwm)} MB)`);
  const ok = pct(times, 95) <= BUDGET_P95_MS && after.hwm <= BUDGET_RSS_MB;
  console.log(`budgets: p95 ≤ ${BUDGET_P95_MS} ms, resident ≤ ${BUDGET_RSS_MB} MB: ${ok ? 'met' : 'NOT MET'}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  host.close();
  rmSync(TMP, { recursive: true, force: true });
}
