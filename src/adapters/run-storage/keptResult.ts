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

/**
 * The bytes of the answer's JSON, or undefined where it stays as it is: a primitive, an answer
 * whose JSON cannot be written, or one `held` says the log holds anyway (a kept event's parsed
 * data). A value made from its JSON text (domain/freeze.ts frozenFromJson) is written from that text.
 */
export function resultBytesOf(result: unknown, held: (value: object) => boolean): Buffer | undefined {
  if (result === null || typeof result !== 'object' || held(result)) return undefined;
  let text: string | undefined;
  try {
    text = result instanceof JsonText ? result.text : (jsonTextOf(result) ?? JSON.stringify(result));
  } catch {
    return undefined;
  }
  return text === undefined ? undefined : Buffer.from(text, 'utf8');
}

/** The answer kept as bytes, parsed anew (a fresh object each read). */
export function resultOfBytes(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString('utf8'));
}
