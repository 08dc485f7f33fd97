// The root lifecycle events of a protocol run: `running` when it starts (the `metadata` at the
// head of its log stands for it) and how it ended, published by the run engine, which alone
// knows it (upstream reads it from the run's record and the thread's pending interrupts).
import type { RunRecord, RunError } from '../records.ts';
import type { RunOutput } from '../graphs/runContext.ts';
import type { RunEvent } from '../runs/runStateMachine.ts';
import type { StoredProtocolEvent } from './events.ts';

export function runningLifecycle(run: Pick<RunRecord, 'graph_id'>, timestamp: number): StoredProtocolEvent {
  return { method: 'lifecycle', params: { namespace: [], timestamp, data: { event: 'running', graph_name: run.graph_id } } };
}

export function terminalLifecycle(
  run: Pick<RunRecord, 'graph_id'>,
  event: RunEvent,
  output: RunOutput | undefined,
  error: RunError | undefined,
): StoredProtocolEvent {
  const waits = event.type === 'succeed' && output !== undefined && Object.values(output.interrupts).some((list) => list.length > 0);
  const status = event.type === 'succeed' ? (waits ? 'interrupted' : 'completed') : event.type === 'stopped' ? 'interrupted' : 'failed';
  const data = { event: status, graph_name: run.graph_id, ...(status === 'failed' && error ? { error: error.message } : {}) };
  return { method: 'lifecycle', params: { namespace: [], timestamp: Date.now(), data } };
}
