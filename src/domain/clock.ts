// The one clock of the domain. `nowIso` is the ISO time the agent server writes (ms, as
// upstream); `timestamp` is the control plane's: microseconds that strictly increase within
// the process. Deployments are listed newest first by creation; unique `created_at` values
// make that order total, so a look-up by id list sorts exactly like a page of the full list.

/** The last millisecond written as text, and its text: a busy server makes several records within one. */
let lastMs = NaN;
let lastText = '';

/**
 * `ms` (since the epoch) as `Date.prototype.toISOString` writes it. The last one is remembered:
 * the records made within one millisecond share it, and a record's times read back (the embedded
 * store keeps them as numbers) mostly are that one. A `Date` and its text (~0.3–0.5 µs) a call
 * otherwise, on every created thread and run.
 */
export function isoOf(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}

/**
 * The milliseconds of a time's text when it is exactly what `isoOf` writes for them, NaN
 * otherwise. The text `isoOf` gave last is known without a parse (a record made now: its
 * created_at and updated_at, packed by the store as it is written).
 */
export function msOfIso(text: string): number {
  if (text === lastText) return lastMs;
  if (text.length !== 24 || text.charCodeAt(23) !== 90 /* Z */) return NaN;
  const ms = Date.parse(text);
  return Number.isFinite(ms) && isoOf(ms) === text ? ms : NaN;
}

export const nowIso = (): string => isoOf(Date.now());

let lastMicros = 0;

export function timestamp(): string {
  const micros = Math.max(Date.now() * 1000, lastMicros + 1);
  lastMicros = micros;
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return `${iso.slice(0, -1)}${String(micros % 1000).padStart(3, '0')}Z`;
}
