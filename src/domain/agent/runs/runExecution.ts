// A claimed run's graph executed: its log begun (a protocol run's events numbered after its
// thread's), its `metadata` event first, its time limit counted from the graph's start, and
// what came of it turned into the run state machine's event (runStateMachine.ts endOf).
import type { Logger } from '../../ports/logger.ts';
import type { RunStore } from '../../ports/runStore.ts';
import type { RunEventLog } from '../../ports/runEventLog.ts';
import { describeError, type RunRecord } from '../records.ts';
import { waitsForInput, type RunExecutor, type RunOutput } from '../graphs/runContext.ts';
import type { InFlight } from './runInFlight.ts';
import { platformCause, PlatformInterruption, RunTimeout } from './runInterruptions.ts';
import { endOf, type Execution, type RunEvent, type StopReason } from './runStateMachine.ts';
import { isProtocolRun } from '../protocol/plainRuns.ts';
import { traceOf } from '../tracing/failedRunTrace.ts';
import type { TraceSpan } from '../tracing/runSpans.ts';

export interface ExecutionDeps {
  records: RunStore;
  eventLog: RunEventLog;
  execute: RunExecutor;
  /** A run still executing after this long is stopped and ends in `timeout` (0 or absent: no limit). */
  runTimeoutMs?: number;
}

/** How the execution ended, with what the graph handed back, and the run's trace (a failed run's up to its error). */
export interface Executed {
  event: RunEvent;
  output: RunOutput | undefined;
  trace: TraceSpan[] | undefined;
}

export async function executeGraph(
  deps: ExecutionDeps,
  run: RunRecord,
  running: InFlight,
  log: Logger,
  stopLocal: (runId: string, reason: StopReason) => boolean,
): Promise<Executed> {
  const { eventLog } = deps;
  // a protocol run's events are numbered after the thread's protocol events so far
  if (isProtocolRun(run)) running.protocol = { base: (await deps.records.thread(run.thread_id))?.protocol_seq ?? 0, published: 0 };
  const publish = (event: string, data: unknown) => {
    if (running.protocol) running.protocol.published += 1;
    eventLog.publish(run.run_id, event, data);
  };
  const limitMs = deps.runTimeoutMs ?? 0;
  let timer: NodeJS.Timeout | undefined;
  // the limit counts from the graph's start, not from a wait for a worker to load
  const startClock = () => {
    if (limitMs <= 0 || timer) return;
    timer = setTimeout(() => {
      if (running.stop) return;
      running.stop = 'timeout';
      running.controller.abort(new RunTimeout(limitMs));
    }, limitMs);
    timer.unref();
  };
  let execution: Execution = {
    returned: false,
    error: { error: 'InternalError', message: 'The run ended unexpectedly.' },
    platformCause: null,
    workerDied: false,
  };
  let output: RunOutput | undefined;
  // a failed run keeps the spans it made up to its error
  let failedTrace: TraceSpan[] | undefined;
  try {
    await eventLog.begin(
      run.run_id,
      (err) => {
        log.error("the run's events could not be stored; starting it again", { err });
        stopLocal(run.run_id, 'eventsLost');
      },
      run.attempt,
    );
    publish('metadata', {
      run_id: run.run_id,
      attempt: run.attempt,
      ...(running.protocol ? { seq_base: running.protocol.base, timestamp: Date.now() } : {}),
    });
    output = await deps.execute(run, running.controller.signal, publish, startClock);
    execution = { returned: true, waitsForInput: waitsForInput(output) };
  } catch (err) {
    execution = { returned: false, error: describeError(err), platformCause: platformCause(err), workerDied: err instanceof PlatformInterruption };
    failedTrace = traceOf(err);
    // the client sees __error__; the operator sees why, with the stack, under the run's id
    if (endOf(running.stop, execution, limitMs).type === 'fail')
      log.error('graph failed', { assistant_id: run.assistant_id, graph_id: run.graph_id, err: err instanceof Error ? err : { message: String(err) } });
  } finally {
    clearTimeout(timer);
  }
  return { event: endOf(running.stop, execution, limitMs), output, trace: output?.trace ?? failedTrace };
}
