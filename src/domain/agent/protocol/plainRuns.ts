// Protocol events of plain-function graphs, which have no protocol stream of their own: their
// run stream's `values`, `updates` and `custom` events become the protocol's (at the root).
import type { RunRecord } from '../records.ts';
import { PROTOCOL_RUN_KEY } from './events.ts';
import type { RunProtocolSource } from './runProtocolSource.ts';

export const isProtocolRun = (run: Pick<RunRecord, 'kwargs'>): boolean => run.kwargs[PROTOCOL_RUN_KEY] === true;

/** A run stream's publish that publishes protocol events instead. */
export function plainProtocolEvents(source: RunProtocolSource): (event: string, data: unknown) => void {
  return (event, data) => {
    if (event === 'values') source.take({ method: 'values', params: { namespace: [], data } });
    else if (event === 'custom') source.take({ method: 'custom', params: { namespace: [], data: { payload: data } } });
    else if (event === 'updates' && typeof data === 'object' && data !== null)
      for (const [node, values] of Object.entries(data)) source.take({ method: 'updates', params: { namespace: [], data: { node, values } } });
  };
}
