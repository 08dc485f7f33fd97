// A run's output as the main thread takes it from the run worker's `done` (issue 87): its end
// values, which the thread's record keeps (the embedded store's cache holds it) and a protocol
// run's join answers from its finished log, are one object for both, frozen.
import type { RunOutput } from '../../domain/agent/graphs/runContext.ts';
import { deepFreeze, frozenFromJson } from '../../domain/freeze.ts';
import { dataOf, JsonText } from '../../shared/jsonText.ts';
import type { FromWorker } from './protocol.ts';

/**
 * The output of a run the worker says is done. Values sent as the run's last `values` event come
 * from that event (endValues). Values sent with the message (a protocol run's, which streams
 * no `values` event of its own) are the message's clone, nobody else's: frozen in place, so the
 * store keeps that object (a frozen copy shares what is frozen) and the finished log's join
 * answer is the same one. Before, the log kept the clone and the store a frozen copy of it: two
 * copies of the thread's whole state a run, each outliving the main thread's scavenges.
 */
export function runEndOutput(message: Extract<FromWorker, { type: 'done' }>, lastValues: unknown): RunOutput {
  if (message.valuesAsLastEvent) return { ...message.output, values: endValues(lastValues) as RunOutput['values'] };
  deepFreeze(message.output.values);
  return message.output;
}

/**
 * A run's values at its end, from its last `values` event: while no reader has parsed the event's
 * text, a frozen parse of its own that keeps the text as its JSON (frozenFromJson), so the store
 * writes the thread's values as that text instead of serialising them again (issue 91); the
 * event keeps its text unparsed for its readers. Else the event's data, as its readers have it.
 */
function endValues(data: unknown): unknown {
  return data instanceof JsonText && !data.isParsed ? frozenFromJson(data.text) : dataOf(data);
}
