// The figures of a burst of large runs (memoryBurst.ts), apart from its code so that
// figures.ts can read them without importing the bench's server machinery.

export const BURST_RUNS = 25;
export const BURST_SECONDS = 60;
/** The bench's variant over several threads. */
export const BURST_THREADS = 5;
export const BURST_STEP_S = 5;

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
