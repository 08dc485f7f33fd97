// The whole life of one run, in one place: claim → running → success | error | interrupted.
// Whatever happens inside the graph, the `finally` writes the final status, closes the
// run's event log and moves the thread on, so a failing graph never blocks its thread.
import type { RunResult, ThreadStatus } from '../../../generated/agent-server/types.gen.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { Collection, Store, WriteOp } from '../../runtime/store/types.ts';
import type { RunBroker } from './broker.ts';
import type { StoreCheckpointer } from './checkpointer.ts';
import type { GraphRegistry } from './graphs.ts';
import { runLangGraph, runPlainGraph, type RunOutput } from './graphRunners.ts';
import { nowIso } from './ids.ts';
import type { PlainStateStore } from './plainState.ts';
import { describeError, errorResult, type RunError, type RunRecord, type ThreadRecord } from './records.ts';
import type { QueuedRun, RunQueue } from './runQueue.ts';

export type CancelAction = 'interrupt' | 'rollback' | 'shutdown';

export interface ActiveRun {
  controller: AbortController;
  action: CancelAction | null;
}

export interface LifecycleDeps {
  store: Store;
  runs: Collection<RunRecord>;
  threads: Collection<ThreadRecord>;
  graphs: GraphRegistry;
  broker: RunBroker;
  plain: PlainStateStore;
  checkpointer: StoreCheckpointer;
  queue: () => RunQueue;
  active: Map<string, ActiveRun>;
  log: Logger;
}

type Ending =
  | { kind: 'success'; output: RunOutput }
  | { kind: 'error'; error: RunError }
  | { kind: 'cancelled'; action: CancelAction };

export async function executeRun(deps: LifecycleDeps, queued: QueuedRun): Promise<void> {
  // registered before the claim, so a cancel arriving in between is not lost
  const active: ActiveRun = { controller: new AbortController(), action: null };
  deps.active.set(queued.runId, active);
  const claimed = await deps.runs.update(queued.runId, (r) => (r.status === 'pending' ? { ...r, status: 'running', updated_at: nowIso() } : undefined));
  if (!claimed || claimed.status !== 'running') {
    deps.active.delete(queued.runId);
    return;
  }
  const run = claimed;
  const started = Date.now();
  const log = deps.log.child({ run_id: run.run_id, thread_id: run.thread_id, attempt: run.attempt });
  const publish = (event: string, data: unknown) => deps.broker.publish(run.run_id, event, data);
  let ending: Ending = { kind: 'error', error: { error: 'InternalError', message: 'The run ended unexpectedly.' } };
  try {
    publish('metadata', { run_id: run.run_id, attempt: run.attempt });
    const graphId = String((await deps.threads.get(run.thread_id))?.metadata.graph_id ?? '');
    const graph = deps.graphs.get(graphId);
    if (!graph) throw Object.assign(new Error(`Graph '${graphId}' is not configured on this server.`), { name: 'GraphNotFound' });
    const ctx = { run, graph, signal: active.controller.signal, publish, plain: deps.plain, resumeFromCheckpoint: run.attempt > 1 && (await resumable(deps, run)) };
    const output = graph.kind === 'plain' ? await runPlainGraph(ctx) : await runLangGraph(ctx);
    ending = active.action ? { kind: 'cancelled', action: active.action } : { kind: 'success', output };
  } catch (err) {
    ending = active.action ? { kind: 'cancelled', action: active.action } : { kind: 'error', error: describeError(err) };
  } finally {
    try {
      await finish(deps, run, ending);
    } catch (err) {
      log.error('could not record the end of a run', { err });
    }
    deps.active.delete(run.run_id);
    deps.broker.end(run.run_id);
    log.info('run finished', { outcome: ending.kind === 'cancelled' ? ending.action : ending.kind, exec_ms: Date.now() - started });
  }
}

async function finish(deps: LifecycleDeps, run: RunRecord, ending: Ending): Promise<void> {
  const now = nowIso();
  const thread = await deps.threads.get(run.thread_id);
  const current = await deps.runs.get(run.run_id);
  if (!thread || !current) return; // the thread was deleted meanwhile
  if (ending.kind === 'cancelled' && ending.action === 'shutdown') {
    // the server is stopping: the run starts again, from the same attempt, after the restart
    await deps.runs.put(run.run_id, { ...current, status: 'pending', updated_at: now });
    return;
  }
  if (ending.kind === 'cancelled' && ending.action === 'rollback') {
    await deps.checkpointer.deleteRun(run.thread_id, run.run_id);
    await deps.store.write([
      { collection: deps.runs.name, id: run.run_id, delete: true },
      { collection: deps.threads.name, id: thread.thread_id, value: { ...thread, status: threadStatusAfter(deps, run, 'idle'), updated_at: now } },
    ]);
    return;
  }
  const ops: WriteOp[] = [];
  let threadStatus: ThreadStatus = 'idle';
  // a cancelled run's answer is whatever the thread holds when someone asks (see runResult)
  let result: RunResult | undefined;
  let interrupts = thread.interrupts;
  let status: RunRecord['status'];
  let error: RunError | undefined;
  if (ending.kind === 'success') {
    status = 'success';
    ops.push(...ending.output.ops);
    interrupts = ending.output.interrupts;
    threadStatus = ending.output.next.length > 0 ? 'interrupted' : 'idle';
    const pending = Object.values(interrupts).flat();
    result = pending.length ? { ...ending.output.values, __interrupt__: pending } : ending.output.values;
  } else if (ending.kind === 'error') {
    status = 'error';
    error = ending.error;
    threadStatus = 'error';
    result = errorResult(ending.error);
    deps.broker.publish(run.run_id, 'error', ending.error);
  } else {
    status = 'interrupted';
  }
  ops.push({ collection: deps.runs.name, id: run.run_id, value: { ...current, status, updated_at: now, ...(error ? { error } : {}) } });
  ops.push({ collection: deps.threads.name, id: thread.thread_id, value: { ...thread, status: threadStatusAfter(deps, run, threadStatus), interrupts, updated_at: now } });
  await deps.store.write(ops);
  if (result !== undefined) deps.broker.setResult(run.run_id, result);
}

/** Upstream rule: error / interrupted win; otherwise busy while runs remain queued. */
function threadStatusAfter(deps: LifecycleDeps, run: RunRecord, status: ThreadStatus): ThreadStatus {
  if (status === 'error' || status === 'interrupted') return status;
  return deps.queue().pendingOn(run.thread_id).length > 0 ? 'busy' : status;
}

/** Whether a crashed LangGraph run already wrote checkpoints it can continue from. */
async function resumable(deps: LifecycleDeps, run: RunRecord): Promise<boolean> {
  return (await deps.checkpointer.latestRunId(run.thread_id)) === run.run_id;
}
