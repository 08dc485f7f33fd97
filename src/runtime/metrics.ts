// Prometheus metrics (prom-client): one registry per server, so tests and several servers in
// one process never share counters. The runtime records every request; areas add their own
// gauges, whose values are read from their state when /metrics is scraped.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { RequestTally } from './requestTally.ts';

export type GaugeSample = { labels?: Record<string, string>; value: number };

export class Metrics {
  readonly registry = new Registry();
  /** Every request's count and latency (requestTally.ts: prom-client's per-call labelling is too dear for the request loop). */
  private readonly requests = new RequestTally([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);

  constructor(prefix = 'agentplane_') {
    // the event-loop lag is sampled every 100 ms, not prom-client's default 10 ms: its timer
    // woke the loop 100 times a second, 5 ms of CPU in each idle second (1.3 ms at 100 ms),
    // paid again under load by every request's share of the wake-ups
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    this.requests.registerCounter(
      this.registry,
      `${prefix}http_requests_total`,
      'HTTP requests answered, by operationId (or the route outside the contract) and status.',
    );
    this.requests.registerHistogram(
      this.registry,
      `${prefix}http_request_duration_seconds`,
      'Time from receiving a request to the end of its reply (streams included), by operationId.',
    );
  }

  observeRequest(operation: string, method: string, status: number, seconds: number): void {
    this.requests.record(operation, method, status, seconds);
  }

  /** A gauge whose samples are computed at scrape time. */
  gauge(name: string, help: string, labelNames: string[], sample: () => Promise<GaugeSample[]> | GaugeSample[]): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const s of await sample()) {
          if (s.labels) this.set(s.labels, s.value);
          else this.set(s.value);
        }
      },
    });
  }

  histogram<L extends string>(name: string, help: string, labelNames: L[], buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
