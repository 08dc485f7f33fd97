// Where the domain reports what it measures. The runtime's Prometheus registry
// (src/runtime/metrics/metrics.ts) satisfies this port and is injected; the domain never names it.

export type GaugeSample = { labels?: Record<string, string>; value: number };

export interface Histogram<L extends string> {
  observe(value: number): void;
  observe(labels: Partial<Record<L, string | number>>, value: number): void;
}

export interface MetricsRegistry {
  /** A gauge whose samples are computed when the metrics are read. */
  gauge(name: string, help: string, labelNames: string[], sample: () => Promise<GaugeSample[]> | GaugeSample[]): void;
  histogram<L extends string>(name: string, help: string, labelNames: L[], buckets: number[]): Histogram<L>;
}
