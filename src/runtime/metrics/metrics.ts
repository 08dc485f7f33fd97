// Prometheus metrics (prom-client): one registry per server, so tests and several servers in
// one process never share counters. The runtime records every request; areas add their own
// gauges, whose values are read from their state when /metrics is scraped. prom-client is
// imported by load(), which the server calls once it answers (loading it cost ~40 ms of the
// main thread's CPU before the first reply): requests are counted from the first one
// (requestTally.ts needs no prom-client), and the gauges and histograms the areas add before
// it loads are registered then, a histogram's observations made meanwhile with it.
import type { Counter, Registry } from 'prom-client';
import { RequestTally } from './requestTally.ts';
import { registerEventLoopDelay, UNSAMPLED_MS } from './eventLoopDelay.ts';

type PromClient = typeof import('prom-client');

export type GaugeSample = { labels?: Record<string, string>; value: number };

/** What an area does with a histogram (the domain's port says the same): observe. */
export interface Histogram<L extends string> {
  observe(value: number): void;
  observe(labels: Partial<Record<L, string | number>>, value: number): void;
}

export class Metrics {
  private loaded: { client: PromClient; registry: Registry } | undefined;
  private loading: Promise<void> | undefined;
  /** Gauges and histograms given before load(), registered by it. */
  private readonly pending: (() => void)[] = [];
  /** Every request's count and latency (requestTally.ts: prom-client's per-call labelling is too dear for the request loop). */
  private readonly requests = new RequestTally([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);

  constructor(private readonly prefix = 'agentplane_') {}

  /** Imports prom-client and makes the registry; histogram() and counter() need it done. */
  load(): Promise<void> {
    return (this.loading ??= import('prom-client').then((client) => {
      const registry = new client.Registry();
      this.loaded = { client, registry };
      // the event loop's delays are ours (eventLoopDelay.ts: sampled every 100 ms, that interval
      // not counted as lag); prom-client's histogram is given a timer that never fires
      client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: UNSAMPLED_MS });
      registerEventLoopDelay(client, registry);
      this.requests.registerCounter(
        registry,
        `${this.prefix}http_requests_total`,
        'HTTP requests answered, by operationId (or the route outside the contract) and status.',
      );
      this.requests.registerHistogram(
        registry,
        `${this.prefix}http_request_duration_seconds`,
        'Time from receiving a request to the end of its reply (streams included), by operationId.',
      );
      for (const register of this.pending.splice(0)) register();
    }));
  }

  /** The registry, once load() is done. */
  get registry(): Registry {
    return this.ready().registry;
  }

  private ready(): { client: PromClient; registry: Registry } {
    if (!this.loaded) throw new Error('metrics used before Metrics.load()');
    return this.loaded;
  }

  observeRequest(operation: string, method: string, status: number, seconds: number): void {
    this.requests.record(operation, method, status, seconds);
  }

  /** A gauge whose samples are computed at scrape time (registered once prom-client is loaded). */
  gauge(name: string, help: string, labelNames: string[], sample: () => Promise<GaugeSample[]> | GaugeSample[]): void {
    const register = () => {
      const { client, registry } = this.ready();
      new client.Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        async collect() {
          this.reset();
          for (const s of await sample()) {
            if (s.labels) this.set(s.labels, s.value);
            else this.set(s.value);
          }
        },
      });
    };
    if (this.loaded) register();
    else this.pending.push(register);
  }

  /** A histogram; one given before load() keeps what it observes meanwhile and hands it over once registered. */
  histogram<L extends string>(name: string, help: string, labelNames: L[], buckets: number[]): Histogram<L> {
    const make = (): Histogram<L> => {
      const { client, registry } = this.ready();
      return new client.Histogram({ name, help, labelNames, buckets, registers: [registry] });
    };
    if (this.loaded) return make();
    type Observe = (...args: unknown[]) => void;
    let made: Observe | undefined;
    const early: unknown[][] = [];
    this.pending.push(() => {
      const histogram = make();
      made = histogram.observe.bind(histogram) as Observe;
      for (const args of early.splice(0)) made(...args);
    });
    return { observe: ((...args: unknown[]) => (made ? made(...args) : early.push(args))) as Observe } as Histogram<L>;
  }

  counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    const { client, registry } = this.ready();
    return new client.Counter({ name, help, labelNames, registers: [registry] });
  }

  async render(): Promise<{ contentType: string; text: string }> {
    await this.load();
    const { registry } = this.ready();
    return { contentType: registry.contentType, text: await registry.metrics() };
  }
}
