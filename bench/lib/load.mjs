// Load generation: wrk when installed (native, so it takes less of the 2 cores than a JS client),
// otherwise autocannon from node_modules. Both report the same figures.
import { existsSync } from 'node:fs';
import { WRK, track } from './processes.mjs';

export const loadTool = () => (existsSync(WRK) ? 'wrk' : 'autocannon');

/** wrk prints durations as 812.00us / 5.45ms / 1.20s. */
function toMs(text) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) return NaN;
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2]];
}

async function runWrk(url, { connections, seconds, headers, threads = 2 }) {
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${seconds}s`, '--timeout', '5s', '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  const child = track(WRK, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const { code } = await child.exited;
  const rps = /Requests\/sec:\s*([\d.]+)/.exec(out);
  if (code !== 0 || !rps) throw new Error(`wrk failed (code ${code}):\n${out}`);
  const total = /(\d+) requests in ([\d.]+)s, ([\d.]+\w+) read/.exec(out);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Number(rps[1]),
    requests: total ? Number(total[1]) : NaN,
    latencyAvgMs: toMs(/Latency\s+(\S+)/.exec(out)?.[1] ?? ''),
    latencyP99Ms: toMs(/^\s*99%\s+(\S+)/m.exec(out)?.[1] ?? ''),
    non2xx: Number(/Non-2xx or 3xx responses:\s*(\d+)/.exec(out)?.[1] ?? 0),
    errors: errors ? errors.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    bytesPerRequest: total ? parseSize(total[3]) / Number(total[1]) : NaN,
    raw: out,
  };
}

/** wrk's "143.50MB read" → bytes. */
function parseSize(text) {
  const m = /^([\d.]+)(B|KB|MB|GB)$/.exec(text);
  return m ? Number(m[1]) * { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[m[2]] : NaN;
}

async function runAutocannon(url, { connections, seconds, headers }) {
  const { default: autocannon } = await import('autocannon');
  const r = await autocannon({ url, connections, duration: seconds, headers, timeout: 5 });
  return {
    rps: r.requests.total / r.duration,
    requests: r.requests.total,
    latencyAvgMs: r.latency.average,
    latencyP99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    bytesPerRequest: r.throughput.total / Math.max(1, r.requests.total),
    raw: '',
  };
}

/**
 * Runs one load test: `connections` keep-alive connections hammering `url` for `seconds`, with
 * `opts.tool` ('wrk' | 'autocannon') or the default tool. autocannon runs in this process: one thread.
 */
export function load(url, opts) {
  return (opts.tool ?? loadTool()) === 'wrk' ? runWrk(url, opts) : runAutocannon(url, opts);
}
