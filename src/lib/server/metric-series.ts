// Two metrics of the request path, counted without hashing labels on every request. prom-client's
// Counter and Histogram turn the label object into a key string on each `inc`/`observe` (sorting,
// joining, a dictionary lookup): ~1.3 µs of a cached page's ~40 µs (perf, bench/RESULTS.md). Here
// a caller asks once for the series of its labels and keeps it (a cached page keeps its own); each
// request then adds to plain numbers. The registry reads them in prom-client's own shape, so
// /metrics prints exactly what a prom-client Counter or Histogram with these labels would.
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface MetricValue { labels?: Labels; value: number; metricName?: string }

abstract class SeriesMetric<S extends { labels: Labels }> {
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'histogram';
  #series = new Map<string, S>();

  constructor(readonly name: string, readonly help: string, private readonly labelNames: readonly string[], registry: Registry) {
    registry.registerMetric(this as never);
  }

  protected abstract create(labels: Labels): S;

  /** The series of these labels, created on first use; keep it to count without a lookup. */
  series(labels: Labels): S {
    const key = this.labelNames.map((name) => labels[name] ?? '').join('\u0000');
    let series = this.#series.get(key);
    if (series === undefined) {
      const own: Labels = {};
      for (const name of this.labelNames) if (labels[name] !== undefined) own[name] = labels[name];
      series = this.create(own);
      this.#series.set(key, series);
    }
    return series;
  }

  protected all(): IterableIterator<S> {
    return this.#series.values();
  }

  /** What prom-client's registry prints. */
  abstract get(): { name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' };

  /** Registry.resetMetrics(): every series back to zero (the held ones too). */
  abstract reset(): void;
}

export interface CounterSeries { readonly labels: Labels; value: number }

export class SeriesCounter extends SeriesMetric<CounterSeries> {
  readonly type = 'counter' as const;

  protected create(labels: Labels): CounterSeries {
    return { labels, value: 0 };
  }

  inc(labels: Labels, by = 1): void {
    this.series(labels).value += by;
  }

  get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: [...this.all()].map((s) => ({ labels: s.labels, value: s.value })) };
  }

  reset(): void {
    for (const s of this.all()) s.value = 0;
  }
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative): counts[i] for bounds[i], the last for above them all. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly labels: Labels, private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(seconds: number): void {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

export class SeriesHistogram extends SeriesMetric<HistogramSeries> {
  readonly type = 'histogram' as const;

  constructor(name: string, help: string, labelNames: readonly string[], readonly buckets: readonly number[], registry: Registry) {
    super(name, help, labelNames, registry);
  }

  protected create(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.buckets);
  }

  observe(labels: Labels, seconds: number): void {
    this.series(labels).observe(seconds);
  }

  get() {
    const values: MetricValue[] = [];
    for (const s of this.all()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ labels: { le: String(le), ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const s of this.all()) { s.counts.fill(0); s.sum = 0; s.count = 0; }
  }
}
