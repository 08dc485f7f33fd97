// Protocol events of plain-function graphs, which have no protocol stream of their own: what
// their run publishes for a run stream becomes the protocol's, at the root, shaped as
// LangGraph's `streamEvents` v3 shapes a one-node graph's — `values`, `updates` (one per
// node, with `node`), `custom`, `tasks` (the task's start and result) and `checkpoints` (the
// envelope before each `values`). Nothing else a plain run publishes reaches its log: every
// entry of a protocol run's log is an event of the thread, so none is hidden behind a
// sequence number (issue 90).
import { isCheckpointEnvelope } from '@langchain/langgraph/stream';
import type { RunRecord } from '../records.ts';
import { PROTOCOL_RUN_KEY } from './events.ts';
import type { RunProtocolSource } from './runProtocolSource.ts';

export const isProtocolRun = (run: Pick<RunRecord, 'kwargs'>): boolean => run.kwargs[PROTOCOL_RUN_KEY] === true;

/** A run stream's publish that publishes protocol events instead. */
export function plainProtocolEvents(source: RunProtocolSource): (event: string, data: unknown) => void {
  const take = (method: string, data: unknown) => source.take({ method, params: { namespace: [], data } });
  return (event, data) => {
    switch (event) {
      case 'values':
      case 'tasks':
        take(event, data);
        return;
      case 'checkpoints':
        if (isCheckpointEnvelope(data)) take(event, data);
        return;
      case 'custom':
        // as LangGraph's: a payload that names itself is the event's data, any other is wrapped
        take(event, typeof data === 'object' && data !== null && !Array.isArray(data) && 'name' in data ? data : { payload: data });
        return;
      case 'updates':
        if (typeof data === 'object' && data !== null) for (const [node, values] of Object.entries(data)) take(event, { node, values });
    }
  };
}
