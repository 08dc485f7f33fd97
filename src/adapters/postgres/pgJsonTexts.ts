// The JSON text of a value this replica has serialised already, for the statements that write the
// same value again (issue 87). A run's end on PostgreSQL wrote the thread's values three times:
// the run's last `values` event (its data serialised when it was published), the run's result
// (the same object, the join answer) and the thread's values (the same object again): three
// JSON.stringify of the thread's whole history a run, where the embedded store makes one. The
// event log remembers the text it made of a `values` event's data (rememberJson); the end's
// result and the thread's set take it from there (jsonOfValue). Published event data is never
// changed (the memory log hands the same object to every reader, and to late ones again), so
// the text stays that object's JSON. A frozen value made from its JSON text (a run worker's
// values at its end, domain/freeze.ts frozenFromJson) is written as that text, as the embedded
// store writes it (writtenParts.ts).
import { jsonTextOf } from '../../domain/freeze.ts';

/** By value: the JSON.stringify of a published event's data, made when it was published. */
const published = new WeakMap<object, string>();

/** Whether JSON.stringify writes `value` as its own fields (a plain object or array with no toJSON of its own at its top). */
function plainTop(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return false;
  return typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * JSON.stringify(data), remembered as `data`'s text when `data` is published event data that a
 * later statement may write again (a `values` event's: the run's end state).
 */
export function rememberJson(data: unknown): string {
  const text = JSON.stringify(data ?? null);
  if (data !== null && typeof data === 'object' && plainTop(data)) published.set(data, text);
  return text;
}

/**
 * JSON.stringify(value) (undefined where it writes nothing), from the text made of it before
 * when there is one: a published event's (rememberJson), or the text a frozen value was made
 * from (frozenFromJson).
 */
export function jsonOfValue(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object') {
    const known = published.get(value) ?? jsonTextOf(value);
    if (known !== undefined) return known;
  }
  return JSON.stringify(value) as string | undefined;
}
