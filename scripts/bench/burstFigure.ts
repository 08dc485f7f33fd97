// The figures of a burst of large runs (memoryBurst.ts), apart from its code so that
// figures.ts can read them without importing the bench's server machinery.

export const BURST_RUNS = 25;
export const BURST_SECONDS = 60;
/** The bench's variant over several threads. */
export const BURST_THREADS = 5;
export const BURST_STEP_S = 5;

/**
 * The idle figure is read once the fresh server's start-up work has settled, not at a fixed time
 * after its first 200: since 2026-11-29 (4f789220) it starts a run worker and warms the run path
 * after it answers, ~100 MB that an idle server holds for good, and 2 s after the first 200 the
 * RSS was anywhere in that climb (115-224 MB read, 206-211 MB settled; findings.md, h86b21).
 * RSS is sampled every IDLE_STEP_MS; the idle figure is the first sample, from IDLE_MIN_MS on,
 * at which the last IDLE_STILL samples lie within IDLE_SPREAD of their largest, or the last one
 * at IDLE_MAX_MS.
 */
export const IDLE_STEP_MS = 1_000;
export const IDLE_MIN_MS = 5_000;
export const IDLE_MAX_MS = 30_000;
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

export interface BurstFigure {
  threads: number;
  runs: number;
  /** RSS once the start's work settled (idleSettled), and how long after the first 200 that was. */
  idleMB: number;
  idleAfterS?: number;
  peakMB: number;
  /** RSS every 5 s after the burst, the last one BURST_SECONDS after it. */
  samplesMB: number[];
  afterMB: number;
  ratio: number;
}
