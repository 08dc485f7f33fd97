// A run that fails ends by throwing, so its trace cannot travel in the run's output: it rides
// on the error instead (remembered per error object, and carried explicitly across the run
// worker boundary) until the run engine records it on the failed run.
import type { TraceSpan } from './runSpans.ts';

const traces = new WeakMap<object, TraceSpan[]>();

/** Keeps the spans of the run that threw `error` (a thrown non-object cannot carry them). */
export function withTrace<E>(error: E, trace: TraceSpan[]): E {
  if (typeof error === 'object' && error !== null && trace.length > 0) traces.set(error, trace);
  return error;
}

/** The trace of the run that threw `error`, if one was kept. */
export function traceOf(error: unknown): TraceSpan[] | undefined {
  return typeof error === 'object' && error !== null ? traces.get(error) : undefined;
}
