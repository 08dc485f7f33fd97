// The run's state machine, with no I/O: what a run and its thread become on each event, and
// what the engine must do about it (the effects). The run engine (runEngine.ts) reads the
// record, asks `transition`, and writes what it answers, whatever backend holds the runs:
//
//   run  pending → running                          claim (a worker takes it)
//   run  pending → interrupted | (deleted)          cancel before it started (interrupt | rollback)
//   run  running → (unchanged, abort)               cancel while it runs; its end is recorded later
//   run  running → success, thread idle | interrupted   succeed (interrupted: it waits for input)
//   run  running → error, thread error              fail (the graph threw)
//   run  running → timeout, thread error            timedOut (AGENTPLANE_RUN_TIMEOUT_S)
//   run  running → interrupted, thread idle         stopped: interrupt
//   run  running → (deleted), thread idle           stopped: rollback (what it wrote is undone)
//   run  running → (unchanged, nothing written)     stopped: lost (another replica took it over)
//   run  running → pending, attempt + 1             platformInterrupted: its server died, stopped
//                                                   or its store failed under it, its worker died
//                                                   with other runs, its events could not be kept
//   run  running → error, thread error              platformInterrupted at attempt MAX_ATTEMPTS
//   run  final   → (unchanged)                      cancel after it finished (accepted, as upstream)
//
// Every other (status, event) pair is refused (null). A thread's `idle` becomes `busy` while
// other runs wait on it (settleThread); `error` and `interrupted` win.
import type { MultitaskStrategy, RunStatus, ThreadStatus } from '../../../../generated/agent-server/types.gen.ts';
import type { RunError } from '../records.ts';

export type { MultitaskStrategy, RunStatus, ThreadStatus };
export { RUN_STATUSES } from '../../../../generated/agent-server/types.gen.ts';

/** How many times a run may be started; the platform interrupting it more often ends it in `error`. */
export const MAX_ATTEMPTS = 3;

export type CancelAction = 'interrupt' | 'rollback';
/**
 * Why a run executing here stops early. `lost`: another replica took its claim over (this one
 * was thought gone); `eventsLost`: its events could not be stored for its readers;
 * `unrenewed`: its claim could not be renewed for so long that it would soon expire (runLease.ts).
 */
export type StopReason = CancelAction | 'shutdown' | 'timeout' | 'lost' | 'eventsLost' | 'unrenewed';

export const FINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(['success', 'error', 'timeout', 'interrupted']);

export interface RunState {
  status: RunStatus;
  attempt: number;
}

export type RunEvent =
  | { type: 'claim' }
  | { type: 'cancel'; action: CancelAction }
  | { type: 'succeed'; waitsForInput: boolean }
  | { type: 'fail'; error: RunError }
  | { type: 'stopped'; reason: 'interrupt' | 'rollback' | 'lost' }
  | { type: 'timedOut'; limitMs: number }
  /** `cause` null: the server died under the run (a crash, kill -9), found on recovery. */
  | { type: 'platformInterrupted'; cause: RunError | null };

export type Effect =
  /** Ask the executing run to stop; its end is recorded when it has stopped. */
  | { type: 'abort'; reason: CancelAction }
  /** Tell the run's readers why it failed (once per run, however many attempts). */
  | { type: 'publishError'; error: RunError }
  /** The join/wait answer: the run's output, or its error. */
  | { type: 'setResult'; from: 'output' | 'error' }
  /** Undo what the run wrote (its checkpoints). */
  | { type: 'deleteCheckpoints' }
  /** It starts again: its log stays open for the next attempt, its claim goes back to the queue. */
  | { type: 'requeue' }
  /** Give the claim back (the thread's next run may start). */
  | { type: 'release' }
  /** Close the run's log with `end`. */
  | { type: 'closeLog' }
  /** A stateless run's own thread goes with it (`on_completion: delete`). */
  | { type: 'discardTemporaryThread' }
  /** Listeners (webhooks, metrics) hear of the final status. */
  | { type: 'announce' };

export interface Transition {
  /** The run's next state; null: its record is deleted. */
  run: (RunState & { error?: RunError }) | null;
  /** The thread's status before settleThread; null: unchanged. */
  thread: ThreadStatus | null;
  effects: Effect[];
}

/** What a run that reached a final status (or was rolled back) does once recorded. */
const ENDED: Effect[] = [{ type: 'release' }, { type: 'closeLog' }, { type: 'discardTemporaryThread' }];

export function transition(state: RunState, event: RunEvent): Transition | null {
  const same = { status: state.status, attempt: state.attempt };
  if (FINAL_RUN_STATUSES.has(state.status)) return event.type === 'cancel' ? { run: same, thread: null, effects: [] } : null;
  if (state.status === 'pending') {
    if (event.type === 'claim') return { run: { ...same, status: 'running' }, thread: null, effects: [] };
    if (event.type !== 'cancel') return null;
    return {
      run: event.action === 'rollback' ? null : { ...same, status: 'interrupted' },
      thread: 'idle',
      effects: [{ type: 'closeLog' }, { type: 'discardTemporaryThread' }],
    };
  }
  // running
  switch (event.type) {
    case 'claim':
      return null;
    case 'cancel':
      return { run: same, thread: null, effects: [{ type: 'abort', reason: event.action }] };
    case 'succeed':
      return {
        run: { ...same, status: 'success' },
        thread: event.waitsForInput ? 'interrupted' : 'idle',
        effects: [{ type: 'setResult', from: 'output' }, ...ENDED, { type: 'announce' }],
      };
    case 'fail':
      return failed(state, 'error', event.error);
    case 'stopped':
      if (event.reason === 'lost') return { run: same, thread: null, effects: [] };
      if (event.reason === 'rollback') return { run: null, thread: 'idle', effects: [{ type: 'deleteCheckpoints' }, ...ENDED] };
      return { run: { ...same, status: 'interrupted' }, thread: 'idle', effects: [...ENDED, { type: 'announce' }] };
    case 'timedOut':
      return failed(state, 'timeout', { error: 'TimeoutError', message: timeoutMessage(event.limitMs) });
    case 'platformInterrupted':
      if (state.attempt >= MAX_ATTEMPTS) return failed(state, 'error', givenUp(state.attempt, event.cause));
      return { run: { status: 'pending', attempt: state.attempt + 1 }, thread: null, effects: [{ type: 'requeue' }, { type: 'release' }] };
  }
}

function failed(state: RunState, status: 'error' | 'timeout', error: RunError): Transition {
  return {
    run: { status, attempt: state.attempt, error },
    thread: 'error',
    effects: [{ type: 'publishError', error }, { type: 'setResult', from: 'error' }, ...ENDED, { type: 'announce' }],
  };
}

export function timeoutMessage(limitMs: number): string {
  return `The run exceeded its time limit of ${limitMs / 1000} s (AGENTPLANE_RUN_TIMEOUT_S) and was stopped.`;
}

function givenUp(attempt: number, cause: RunError | null): RunError {
  return cause
    ? { error: 'RunInterruptedByPlatform', message: `The platform interrupted this run ${attempt} times (last: ${cause.message}); it was not started again.` }
    : { error: 'RunInterruptedByServerRestart', message: `The server stopped while this run was in progress, ${attempt} times; it was not started again.` };
}

/** Upstream rule: `error` and `interrupted` win; otherwise the thread is `busy` while other runs wait on it. */
export function settleThread(status: ThreadStatus, othersWaiting: boolean): ThreadStatus {
  if (status === 'error' || status === 'interrupted') return status;
  return othersWaiting ? 'busy' : status;
}

/** The causes of the platform's own stops: a graceful stop of the server (SIGTERM), a log that failed its readers, a claim not renewed. */
export const SHUTDOWN_CAUSE: RunError = { error: 'ServerShutdown', message: 'The server was stopped while the run was in progress.' };
export const EVENTS_LOST_CAUSE: RunError = { error: 'RunEventsLost', message: "The run's events could not be stored for its readers." };
export const CLAIM_UNRENEWED_CAUSE: RunError = {
  error: 'RunClaimNotRenewed',
  message: 'The replica executing the run could not reach the database to keep its claim, and stopped the run before its claim could expire.',
};

/** How an execution ended, as the engine saw it. */
export type Execution =
  | { returned: true; waitsForInput: boolean }
  /** `platformCause`: not the graph's fault (see PlatformInterruption); `workerDied`: its worker died with other runs in it. */
  | { returned: false; error: RunError; platformCause: RunError | null; workerDied: boolean };

/**
 * The event an execution's end is, given why it was asked to stop (null: it was not). A stop
 * for a shutdown is the platform's doing; so is a failure of the platform unless the run had
 * been asked to stop, or it reached its time limit in a worker another run blocked.
 */
export function endOf(stop: StopReason | null, execution: Execution, limitMs: number): RunEvent {
  // a graph that finished all the same is recorded as such (its claim permitting, see RunClaims.recordEnd)
  if (stop === 'unrenewed')
    return execution.returned ? { type: 'succeed', waitsForInput: execution.waitsForInput } : { type: 'platformInterrupted', cause: CLAIM_UNRENEWED_CAUSE };
  if (!execution.returned && execution.platformCause && (!stop || (stop === 'timeout' && execution.workerDied)))
    return { type: 'platformInterrupted', cause: execution.platformCause };
  if (stop === 'shutdown') return { type: 'platformInterrupted', cause: SHUTDOWN_CAUSE };
  if (stop === 'eventsLost') return { type: 'platformInterrupted', cause: EVENTS_LOST_CAUSE };
  if (stop === 'timeout') return { type: 'timedOut', limitMs };
  if (stop) return { type: 'stopped', reason: stop };
  return execution.returned ? { type: 'succeed', waitsForInput: execution.waitsForInput } : { type: 'fail', error: execution.error };
}

export type Admission = { kind: 'enqueue' } | { kind: 'reject' } | { kind: 'cancelFirst'; action: CancelAction };

/** What a new run on a thread does to the runs in flight there (multitask_strategy). */
/** Whether `admit` needs the count of runs in flight at all: an enqueued run waits its turn whatever it is. */
export const admitsBlind = (strategy: MultitaskStrategy): strategy is 'enqueue' => strategy === 'enqueue';

export function admit(strategy: MultitaskStrategy, inFlight: number): Admission {
  if (inFlight === 0 || admitsBlind(strategy)) return { kind: 'enqueue' };
  if (strategy === 'reject') return { kind: 'reject' };
  return { kind: 'cancelFirst', action: strategy };
}
