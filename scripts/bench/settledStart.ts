// When a fresh server's start-up work has settled, so that an idle figure is read at rest: the
// rule (test/bench/settledStart.test.ts) and the wait.
import { delay } from './proc.ts';

/**
 * An idle figure (the burst's RSS, the under-load phase's idle probes) is read once the fresh
 * server's start-up work has settled, not from a fixed time after its first 200: since
 * 2026-11-29 (4f789220) a server starts a run worker and warms the run path after it answers,
 * ~100 MB that an idle server then holds for good. 2 s after the first 200 the RSS was anywhere
 * in that climb (115-224 MB read, 206-211 MB settled), and /ok's idle p99 probed from the first
 * 200 on read 41.4 ms against 7.08 ms on a server with no worker to warm (findings.md, h86b21).
 * Nor is the warm worker's plateau idle: ~30-60 MB more are held until ~32 s after the first 200
 * on a quiet machine (most likely the graphs' schema warm-up, the TypeScript compiler in a worker
 * begun once the server is idle; not logged) (fresh servers 2026-12-02: 207-211 MB flat from 4 s to 31 s, then 149-177).
 * RSS is sampled every IDLE_STEP_MS; the idle figure is the first sample, from IDLE_MIN_MS on,
 * at which the last IDLE_STILL samples lie within IDLE_SPREAD of their largest, or the last one
 * at IDLE_MAX_MS.
 */
export const IDLE_STEP_MS = 1_000;
export const IDLE_MIN_MS = 40_000;
export const IDLE_MAX_MS = 60_000;
export const IDLE_STILL = 4;
export const IDLE_SPREAD = 0.03;

/** True: the RSS samples so far (every IDLE_STEP_MS from the first 200 on) have settled, or the wait is over. */
export function idleSettled(samples: readonly number[]): boolean {
  const waited = (samples.length - 1) * IDLE_STEP_MS;
  if (waited >= IDLE_MAX_MS) return true;
  if (waited < IDLE_MIN_MS || samples.length < IDLE_STILL) return false;
  const last = samples.slice(-IDLE_STILL);
  const top = Math.max(...last);
  return Math.min(...last) >= top * (1 - IDLE_SPREAD);
}

/** Samples `rss` every IDLE_STEP_MS from now until idleSettled; the samples (bytes), the last one the idle figure. */
export async function waitForSettledStart(rss: () => number): Promise<number[]> {
  const samples = [rss()];
  while (!idleSettled(samples)) {
    await delay(IDLE_STEP_MS);
    samples.push(rss());
  }
  return samples;
}

/** The rule in words, for the report's method and its whys. */
export const IDLE_RULE = `RSS sampled each second from the first 200, read once the last ${IDLE_STILL} samples lie within ${IDLE_SPREAD * 100}% of their largest, ${IDLE_MIN_MS / 1000} s after it at least (past the start's warm-ups: a run worker warmed, then ~30-60 MB held to ~32 s, most likely the schema warm-up) and ${IDLE_MAX_MS / 1000} s at most`;
