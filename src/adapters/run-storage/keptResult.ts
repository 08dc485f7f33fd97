// A finished run's join answer as its log keeps it (inMemoryRunEventLog.ts, issue 87): the bytes
// of its JSON, off V8's heap, once the readers waiting for the run's end have had it. A finished
// log is kept for the last ~200 runs, seconds under load: the answer as objects (a run worker's
// structured clone of the end state, every message a new object that nothing else holds) lived
// through two of the main thread's scavenges, copied by each, ~10 KB a run of the fan-out's runs
// alone (h87p36, scripts/bench/findings.md). As bytes only the Buffer's handle is on the heap; a
// later join (rare once the run has ended: a client that was not waiting) parses them again,
// which is what its reply holds anyway: the answer goes out as JSON.
import { jsonTextOf } from '../../domain/freeze.ts';
import { JsonText } from '../../shared/jsonText.ts';

/** A join answer as the bytes of its JSON (not exported: only this module tells it apart, layers.test.ts). */
class ResultBytes {
  constructor(readonly bytes: Buffer) {}

  /** The answer, parsed anew (a fresh object each read). */
  value(): unknown {
    return JSON.parse(this.bytes.toString('utf8'));
  }
}

/**
 * The answer as bytes, or as it is: a primitive, an answer whose JSON cannot be written, or one
 * `held` says the log holds anyway (a kept event's parsed data) stays as it is. A value made
 * from its JSON text (domain/freeze.ts frozenFromJson) is written from that text.
 */
export function asKeptResult(result: unknown, held: (value: object) => boolean): unknown {
  if (result === null || typeof result !== 'object' || result instanceof ResultBytes || held(result)) return result;
  let text: string | undefined;
  try {
    text = result instanceof JsonText ? result.text : (jsonTextOf(result) ?? JSON.stringify(result));
  } catch {
    return result;
  }
  return text === undefined ? result : new ResultBytes(Buffer.from(text, 'utf8'));
}

/** The answer a log keeps, as its readers are given it. */
export function resultValue(kept: unknown): unknown {
  return kept instanceof ResultBytes ? kept.value() : kept;
}
