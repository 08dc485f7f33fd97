// The errors an executor ends a run with when the run itself is not to blame: its time limit,
// and an interruption by the platform. The run state machine decides what follows from them
// (runStateMachine.ts: endOf).
import { isStoreUnavailable } from '../../../shared/storeErrors.ts';
import type { RunError } from '../records.ts';
import { timeoutMessage } from './runStateMachine.ts';

/**
 * The abort reason of a run that exceeded its time limit: the executor may end it at once
 * (a worker is terminated) rather than wait for the graph to notice its signal.
 */
export class RunTimeout extends Error {
  constructor(readonly limitMs: number) {
    super(timeoutMessage(limitMs));
    this.name = 'RunTimeout';
  }
}

/**
 * The executor's error for a run interrupted by the platform through no proven fault of its
 * graph (a run worker died while other runs were in it, or had run in it): the run starts
 * again as attempt + 1 instead of failing. `reason` says what happened.
 */
export class PlatformInterruption extends Error {
  constructor(readonly reason: RunError) {
    super(reason.message);
    this.name = 'PlatformInterruption';
  }
}

/**
 * Why a run that failed was cut short by the platform rather than by its graph, or null when
 * the failure is the graph's: its run worker died through another run's fault
 * (PlatformInterruption), or its store (the database, the data directory) could not be
 * reached for the run's checkpoints or bookkeeping.
 */
export function platformCause(err: unknown): RunError | null {
  if (err instanceof PlatformInterruption) return err.reason;
  if (isStoreUnavailable(err)) return { error: 'StoreUnavailable', message: err instanceof Error ? err.message : String(err) };
  return null;
}
