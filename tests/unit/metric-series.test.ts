// The request metrics count into held series (metric-series.ts) instead of prom-client's Counter and
// Histogram; /metrics must print exactly what those would have printed for the same observations.
import { describe, expect, it } from 'vitest';
import { Counter, Histogram, Registry } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from '../../src/lib/server/metric-series';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const OBSERVED: [Record<string, string>, number][] = [
  [{ route: 'home', method: 'GET' }, 0.0004],
  [{ route: 'home', method: 'GET' }, 0.005], // on a bound: counted in it, as prom-client does
  [{ route: 'home', method: 'HEAD' }, 0.3],
  [{ route: 'askIndex', method: 'GET' }, 12], // above every bound: only +Inf
  [{ route: 'askIndex', method: 'GET' }, 0.07],
  [{ route: 'a "quoted"\\route', method: 'GET' }, 0.02],
];

describe('metric series', () => {
  it('print the same text as prom-client for the same observations', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const pc = new Counter({ name: 'requests_total', help: 'Requests', labelNames: ['route', 'method', 'status'], registers: [theirs] });
    const ph = new Histogram({ name: 'latency_seconds', help: 'Latency', labelNames: ['route', 'method'], buckets: BUCKETS, registers: [theirs] });
    const plain = new Counter({ name: 'hits_total', help: 'Hits', registers: [theirs] });
    const sc = new SeriesCounter('requests_total', 'Requests', ['route', 'method', 'status'], ours);
    const sh = new SeriesHistogram('latency_seconds', 'Latency', ['route', 'method'], BUCKETS, ours);
    const hits = new SeriesCounter('hits_total', 'Hits', [], ours).series({});
    const held = sh.series({ route: 'home', method: 'GET' });
    for (const [labels, seconds] of OBSERVED) {
      pc.inc({ ...labels, status: '200' });
      ph.observe(labels, seconds);
      plain.inc();
      sc.inc({ ...labels, status: '200' });
      // The held series and a lookup by labels count into the same place.
      if (labels.route === 'home' && labels.method === 'GET') held.observe(seconds);
      else sh.observe(labels, seconds);
      hits.value++;
    }
    pc.inc({ route: 'home', method: 'GET', status: '304' }, 3);
    sc.inc({ route: 'home', method: 'GET', status: '304' }, 3);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('latency_seconds_bucket{le="0.005",route="home",method="GET"} 2');
  });

  it('reset to zero, held series included', async () => {
    const registry = new Registry();
    const sh = new SeriesHistogram('latency_seconds', 'Latency', ['route'], [0.1, 1], registry);
    const held = sh.series({ route: 'home' });
    held.observe(0.5);
    registry.resetMetrics();
    held.observe(0.05);
    const text = await registry.metrics();
    expect(text).toContain('latency_seconds_bucket{le="0.1",route="home"} 1');
    expect(text).toContain('latency_seconds_count{route="home"} 1');
    expect(text).toContain('latency_seconds_sum{route="home"} 0.05');
  });
});
