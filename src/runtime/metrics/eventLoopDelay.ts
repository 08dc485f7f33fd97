// nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds as the lag they name. Node's
// monitorEventLoopDelay records the time between the ticks of a timer of `resolution` ms, so
// each sample is that resolution plus the lag. prom-client reports the samples as they are,
// which at the 100 ms the server samples at (prom-client's 10 ms default woke the loop 100 times
// a second: 5 ms of CPU in each idle second against 1.3) read 100 ms too high. Here the
// resolution is taken off each figure (not off the stddev, which it does not move).
// nodejs_eventloop_lag_seconds, a setImmediate's wait at each scrape, stays prom-client's.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Registry } from 'prom-client';

type PromClient = typeof import('prom-client');

/** How often the loop's delay is sampled, in ms. */
export const LAG_SAMPLING_MS = 100;

/**
 * The resolution prom-client's own histogram is given, whose gauges are replaced here: a timer
 * that never fires in a process's life (the longest Node takes), so it costs nothing.
 */
export const UNSAMPLED_MS = 2 ** 31 - 1;

const FIGURES = {
  min: (h: IntervalHistogram) => h.min,
  max: (h: IntervalHistogram) => h.max,
  mean: (h: IntervalHistogram) => h.mean,
  stddev: (h: IntervalHistogram) => h.stddev,
  p50: (h: IntervalHistogram) => h.percentile(50),
  p90: (h: IntervalHistogram) => h.percentile(90),
  p99: (h: IntervalHistogram) => h.percentile(99),
} as const;

const HELP: Record<keyof typeof FIGURES, string> = {
  min: 'The minimum recorded event loop delay.',
  max: 'The maximum recorded event loop delay.',
  mean: 'The mean of the recorded event loop delays.',
  stddev: 'The standard deviation of the recorded event loop delays.',
  p50: 'The 50th percentile of the recorded event loop delays.',
  p90: 'The 90th percentile of the recorded event loop delays.',
  p99: 'The 99th percentile of the recorded event loop delays.',
};

/** One figure in seconds, the sampling interval taken off (never below 0); 0 before any sample. */
export function lagSeconds(figure: keyof typeof FIGURES, histogram: IntervalHistogram, resolutionMs = LAG_SAMPLING_MS): number {
  if (histogram.count === 0) return 0;
  const ns = FIGURES[figure](histogram);
  return figure === 'stddev' ? ns / 1e9 : Math.max(0, ns / 1e6 - resolutionMs) / 1000;
}

/**
 * Replaces prom-client's delay gauges in `registry` (collectDefaultMetrics given UNSAMPLED_MS)
 * by ones over a histogram sampled every LAG_SAMPLING_MS, each scrape reading the delays since the last.
 */
export function registerEventLoopDelay(client: PromClient, registry: Registry): void {
  const histogram = monitorEventLoopDelay({ resolution: LAG_SAMPLING_MS });
  histogram.enable();
  let read: Record<keyof typeof FIGURES, number> | undefined;
  const names = Object.keys(FIGURES) as (keyof typeof FIGURES)[];
  for (const figure of names) {
    const name = `nodejs_eventloop_lag_${figure}_seconds`;
    registry.removeSingleMetric(name);
    new client.Gauge({
      name,
      help: HELP[figure],
      registers: [registry],
      aggregator: figure === 'min' ? 'min' : figure === 'max' ? 'max' : 'average',
      collect() {
        // the first gauge a scrape collects reads every figure and starts the next period
        if (figure === names[0]) {
          read = Object.fromEntries(names.map((f) => [f, lagSeconds(f, histogram)])) as Record<keyof typeof FIGURES, number>;
          histogram.reset();
        }
        this.set(read?.[figure] ?? 0);
      },
    });
  }
}
