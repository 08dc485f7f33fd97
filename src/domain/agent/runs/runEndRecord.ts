// How a run's end is written, as the run state machine (runStateMachine.ts) says, through the
// run's claim (RunClaims.recordEnd): a claim taken over meanwhile writes nothing; a final end
// gives the claim up in the same write; then its error, its result and a protocol run's last
// lifecycle event are published, and whoever recorded the end announces it (RunEnded). What
// must follow a final end whatever becomes of this server (its webhook) is written with it
// (RunEndOutbox).
import type { Run, RunResult } from '../../../../generated/agent-server/types.gen.ts';
import { nowIso } from '../../clock.ts';
import { copyWith } from '../../copyWith.ts';
import type { Claim, LogClose, RunClaims } from '../../ports/runClaims.ts';
import type { RunStore } from '../../ports/runStore.ts';
import type { RunEventLog } from '../../ports/runEventLog.ts';
import type { WriteOp } from '../../ports/store.ts';
import type { StoreCheckpointer } from '../checkpoints/checkpointer.ts';
import { PROTOCOL_LOG_EVENT } from '../protocol/events.ts';
import { terminalLifecycle } from '../protocol/lifecycle.ts';
import { errorResult, toApiRun, type RunError, type RunRecord, type ThreadRecord } from '../records.ts';
import type { RunOutput } from '../graphs/runContext.ts';
import { FINAL_RUN_STATUSES, settleThread, transition, type RunEvent, type Transition } from './runStateMachine.ts';
import type { TraceSpan } from '../tracing/runSpans.ts';

/** What listeners (webhooks, metrics) learn when a run has ended and its end is recorded. */
export interface RunEnded {
  run: Run;
  /** The thread's values after a successful run. */
  values?: Record<string, unknown>;
  error?: RunError;
  startedAt: Date;
  endedAt: Date;
  /** From creation to the start of execution. */
  queuedMs: number;
}

/** Writes that go with a run's final end (its webhook's delivery), and what to start once they are written. */
export interface RunEndOutbox {
  forEnd(ended: RunEnded): { ops: WriteOp[]; written(): void } | undefined;
}

export interface RunEndDeps {
  records: RunStore;
  eventLog: RunEventLog;
  checkpointer: StoreCheckpointer;
  claims: RunClaims;
  /** What a run the platform cut short becomes (a new attempt, or `error` after the last). */
  interrupted(run: RunRecord, cause: RunError | null): RunRecord;
  /** The thread's values as its checkpoints hold them now (ThreadStateReader.currentValues): never fails. */
  threadValues(thread: ThreadRecord): Promise<Record<string, unknown> | null>;
  outbox?: RunEndOutbox;
}

/** How recording a run's end went (it is tried again until it succeeds): the error is told once. */
export interface Told {
  error: boolean;
  /** The record as written: pending again for a new attempt; null once deleted. */
  recorded?: RunRecord | null;
  /** The claim was taken over: nothing was written, and nothing more is for this attempt. */
  stale?: boolean;
  /** The claim was given up with the end (RunClaims.recordEnd's `release`). */
  released?: boolean;
  /** What listeners learn of a final end this server recorded (announceRunEnd). */
  ended?: RunEnded;
}

/** A stateless run whose thread is deleted when it ends (`on_completion: delete`). */
export const isTemporary = (run: RunRecord) => run.kwargs.temporary === true;

/**
 * Records the run's end as the state machine says, through its claim: nothing when the claim
 * was taken over (`told.stale`), or when the thread was deleted meanwhile.
 */
export async function recordRunEnd(
  deps: RunEndDeps,
  claim: Claim,
  event: RunEvent,
  output: RunOutput | undefined,
  trace: TraceSpan[] | undefined,
  /** When the run began executing (epoch ms). */
  started: number,
  told: Told,
  protocol?: { base: number; published: number },
): Promise<void> {
  const { records, eventLog, checkpointer, claims } = deps;
  const { run } = claim;
  const ownValues = setsOwnValues(event, output);
  // a successful end takes nothing from its thread nor from the run as stored (only this claim
  // writes a running run): where recordEnd's check finds the thread too, it is written from the
  // run as claimed, a round trip less a run (and the statement's wait for a connection)
  const readFirst = !(ownValues && claims.endChecksThread);
  // the thread's record (its values, the largest document a run moves) is read only for an
  // end that takes its values from the thread's checkpoints: a successful run sets its own
  const { thread, threadThere, run: current } = readFirst ? await claims.endState(run, !ownValues) : { thread: undefined, threadThere: true, run };
  if (!threadThere || !current) return; // the thread was deleted meanwhile
  // another replica took the run over (this one was thought gone) and started it again:
  // the run is theirs now, and this attempt records nothing (recordEnd checks it again, in the write)
  if (current.status !== 'running' || current.attempt !== run.attempt) {
    told.stale = true;
    return;
  }
  /** After a write that found nothing: stale, unless the run or its thread is gone (then there is nothing to tell). */
  const notWritten = async () => {
    if (readFirst) told.stale = true;
    else {
      const now = await claims.endState(run, false);
      told.stale = now.threadThere && now.run !== undefined;
    }
  };
  const step = transition(current, event)!;
  const next = event.type === 'platformInterrupted' ? deps.interrupted(current, event.cause) : applied(current, step);
  if (next?.status === 'pending') {
    if (await claims.recordEnd(claim, [records.putRun(next)])) told.recorded = next;
    else await notWritten();
    return;
  }
  const error = step.effects.find((e) => e.type === 'publishError')?.error;
  // a protocol run ends with its root lifecycle event (its error in it), once: numbered here,
  // published only once the end is recorded (a stale claim publishes nothing)
  const endsProtocol = protocol !== undefined && !told.error;
  const seqEnd = protocol && protocol.base + protocol.published + (endsProtocol ? 1 : 0);
  const ops: WriteOp[] = event.type === 'succeed' && output ? [...output.ops] : [];
  if (step.effects.some((e) => e.type === 'deleteCheckpoints')) ops.push(...(await checkpointer.deleteRunOps(run.thread_id, run.run_id)));
  // the trace stays with the run's record: deleted with the run and its thread
  const withTrace = next && trace ? copyWith(next, { trace }) : next;
  const traced = withTrace && protocol ? copyWith(withTrace, { protocol_seq: { base: protocol.base, end: seqEnd! } }) : withTrace;
  ops.push(traced ? records.putRun(traced) : records.deleteRun(run.run_id));
  if (step.thread) {
    // only what the end decides, set on the thread as it is when the write applies (not on the
    // copy read above: a patch, or a run queued on it, may come in between and must stay), and
    // `busy` when a run is pending on it then, counted by the write itself
    const fields: Partial<ThreadRecord> = { updated_at: next?.updated_at ?? nowIso() };
    if (event.type === 'succeed' && output) fields.interrupts = output.interrupts;
    const values = await valuesAtEnd(deps, thread, event, output, step);
    if (values) fields.values = values.values;
    if (seqEnd !== undefined) fields.protocol_seq = seqEnd;
    ops.push(records.settleThread(run.thread_id, fields, { settled: settleThread(step.thread, false), whileWaiting: settleThread(step.thread, true) }));
  }
  // a final end gives the claim up with it (a temporary thread's goes after its deletion, below)
  const release = next && FINAL_RUN_STATUSES.has(next.status) && !isTemporary(run) ? next : undefined;
  const ended = next && FINAL_RUN_STATUSES.has(next.status) ? endedNews(next, output, event, started) : undefined;
  const follows = ended && deps.outbox?.forEnd(ended);
  if (follows) ops.push(...follows.ops);
  // what the log says after the end: published only once the end is recorded (a stale claim
  // publishes nothing), and with a final end offered to the write itself (RunClaims.recordEnd's `close`)
  const last: LogClose['events'] = endsProtocol
    ? [{ event: PROTOCOL_LOG_EVENT, data: terminalLifecycle(run, event, output, error) }]
    : error && !told.error
      ? [{ event: 'error', data: error }]
      : [];
  const result = resultOf(step, output, error);
  if (!(await claims.recordEnd(claim, ops, release, release && { events: last, result }))) {
    await notWritten();
    return;
  }
  told.recorded = next;
  told.ended = ended;
  follows?.written();
  told.released = release !== undefined;
  for (const { event: name, data } of last) eventLog.publish(run.run_id, name, data);
  if (endsProtocol) protocol.published += 1;
  told.error ||= error !== undefined || protocol !== undefined;
  if (result !== undefined) eventLog.setResult(run.run_id, result);
}

/**
 * The values the thread's record keeps after the run (reads answer them, never computing a
 * state): a successful run's own; a rolled-back run's thread keeps those from before it (its
 * checkpoints go with this write: undefined, nothing to set); otherwise what its checkpoints
 * hold, the last good ones when the graph's reducers refused the failed step's writes. A
 * plain-function graph writes its state only with a successful end, so the others leave its
 * values as they were.
 */
async function valuesAtEnd(
  deps: RunEndDeps,
  thread: ThreadRecord | undefined,
  event: RunEvent,
  output: RunOutput | undefined,
  step: Transition,
): Promise<{ values: Record<string, unknown> | null } | undefined> {
  if (setsOwnValues(event, output)) return { values: output.values };
  if (step.effects.some((e) => e.type === 'deleteCheckpoints')) return undefined;
  // read with the end's state whenever the run does not set its own (recordRunEnd)
  if (!thread) throw new Error(`a run's end (${event.type}) that takes the thread's values was read without its record`);
  return { values: await deps.threadValues(thread) };
}

/** Whether the run's end sets the values the run made (a success with its output), not the thread's. */
function setsOwnValues(event: RunEvent, output: RunOutput | undefined): output is RunOutput {
  return event.type === 'succeed' && output !== undefined;
}

/** `ended`: the final end as this server recorded it (none when it did not: the thread went, or another replica took the run over). */
export function announceRunEnd(onRunEnded: ((ended: RunEnded) => void) | undefined, ended: RunEnded | undefined): void {
  // what was just written, not read back: whoever recorded the end announces it, once
  if (onRunEnded && ended) onRunEnded(ended);
}

/** What is told of a run's final end, `recorded` as it is written. */
function endedNews(recorded: RunRecord, output: RunOutput | undefined, event: RunEvent, started: number): RunEnded {
  return {
    run: toApiRun(recorded),
    values: event.type === 'succeed' ? output?.values : undefined,
    // a run the platform interrupted too often ends in `error` with the reason on its record
    error: event.type === 'fail' ? event.error : recorded.error,
    startedAt: new Date(started),
    endedAt: new Date(),
    queuedMs: Math.max(0, started - Date.parse(recorded.created_at)),
  };
}

/** The record after a transition; null when it is deleted. */
export function applied(run: RunRecord, step: Transition): RunRecord | null {
  if (!step.run) return null;
  const { error, ...state } = step.run;
  return copyWith(copyWith(run, state), error ? { updated_at: nowIso(), error } : { updated_at: nowIso() });
}

/** The join/wait answer; none for an interrupted run (its answer is whatever the thread holds when asked). */
function resultOf(step: Transition, output: RunOutput | undefined, error: RunError | undefined): RunResult | undefined {
  const from = step.effects.find((e) => e.type === 'setResult')?.from;
  if (from === 'error' && error) return errorResult(error);
  if (from !== 'output' || !output) return undefined;
  // as upstream: a run that stopped for input answers with its interrupts alone (the last
  // chunk it streamed); its values are the thread's state. A stop at `interrupt_before` or
  // `interrupt_after` is one too: its tasks wait with no interrupt (LangGraph streams `[]`)
  const stopped = Object.keys(output.interrupts).length > 0;
  return stopped ? { __interrupt__: Object.values(output.interrupts).flat() } : output.values;
}

export function outcomeOf(event: RunEvent): string {
  if (event.type === 'succeed') return 'success';
  if (event.type === 'fail') return 'error';
  if (event.type === 'timedOut') return 'timeout';
  if (event.type === 'stopped') return event.reason;
  return 'interrupted';
}
