// The per-request metrics, counted in plain maps and handed to prom-client when /metrics is
// scraped. prom-client's own inc()/observe() validate the labels and build a string key from
// them on every call; for the two series every request updates that cost 3.8 µs of the
// request loop per request (18.7 → 14.9 µs of user CPU for `GET /ok`, two servers
// alternating): a fifth of a small request. Here a request is three map look-ups by values
// the process already holds (an operationId from the spec, node's method string, a number).
// prom-client is only a type here: the tally counts from the server's first request, and
// prom-client (~0.1 s of loading) is imported once the server listens (metrics.ts).
import type { Registry } from 'prom-client';

interface Series {
  labels: { operation: string; method: string };
  /** Requests by status code. */
  statuses: Map<number, number>;
  /** Observations per bucket: bucket i holds those ≤ bounds[i] and > bounds[i - 1]; the last one those above every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

/** One histogram sample as prom-client's registry writes it out. */
interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

export class RequestTally {
  private readonly series = new Map<string, Map<string, Series>>();

  constructor(private readonly bounds: readonly number[]) {}

  record(operation: string, method: string, status: number, seconds: number): void {
    let byMethod = this.series.get(operation);
    if (!byMethod) this.series.set(operation, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (!series) {
      series = { labels: { operation, method }, statuses: new Map(), buckets: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      byMethod.set(method, series);
    }
    series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]) bucket += 1;
    series.buckets[bucket] += 1;
    series.sum += seconds;
    series.count += 1;
  }

  private *all(): Iterable<Series> {
    for (const byMethod of this.series.values()) yield* byMethod.values();
  }

  /**
   * The requests counter, written out as prom-client writes a Counter (one sample per
   * operation, method and status), its values read from the tally at each scrape; the same
   * registry as the histogram takes (test/runtime/metrics/requestTally.test.ts compares both with
   * prom-client's own).
   */
  registerCounter(registry: Registry, name: string, help: string): void {
    const samples = () => {
      const values: { labels: Record<string, string>; value: number }[] = [];
      for (const series of this.all())
        for (const [status, count] of series.statuses) values.push({ labels: { ...series.labels, status: String(status) }, value: count });
      return values;
    };
    const metric = {
      name,
      help,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ name, help, type: 'counter', aggregator: 'sum', values: samples() }),
      // the counts live in the tally, which the histogram's reset clears
      reset: () => undefined,
    };
    registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /**
   * The latency histogram, written out as prom-client writes its histograms (cumulative
   * `_bucket` series with `le`, then `_sum` and `_count`): prom-client has no way to set a
   * histogram's buckets, so the registry is given a metric of the shape it reads.
   */
  registerHistogram(registry: Registry, name: string, help: string): void {
    const metric = {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: this.histogramSamples(name) }),
      reset: () => this.series.clear(),
    };
    registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  private histogramSamples(name: string): Sample[] {
    const samples: Sample[] = [];
    for (const series of this.all()) {
      let below = 0;
      this.bounds.forEach((le, i) => {
        below += series.buckets[i];
        samples.push({ metricName: `${name}_bucket`, labels: { ...series.labels, le }, value: below });
      });
      samples.push({ metricName: `${name}_bucket`, labels: { ...series.labels, le: '+Inf' }, value: series.count });
      samples.push({ metricName: `${name}_sum`, labels: series.labels, value: series.sum });
      samples.push({ metricName: `${name}_count`, labels: series.labels, value: series.count });
    }
    return samples;
  }
}
