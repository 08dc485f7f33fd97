// The one clock of the domain. `nowIso` is the ISO time the agent server writes (ms, as
// upstream); `timestamp` is the control plane's: microseconds that strictly increase within
// the process. Deployments are listed newest first by creation; unique `created_at` values
// make that order total, so a look-up by id list sorts exactly like a page of the full list.

/** The last millisecond written as text, and its text: a busy server makes several records within one. */
let lastMs = NaN;
let lastText = '';

/** The times whose ISO text has a year of four digits (0000–9999): the only ones isoOf writes itself. */
const FIRST_MS = -62_167_219_200_000;
const LAST_MS = 253_402_300_799_999;
const DAY_MS = 86_400_000;
/** Days from 0000-03-01 to 1970-01-01, the civil calendar's 400-year cycle in days, its 4-, 100- and 1-year spans. */
const EPOCH_DAYS = 719_468;
const CYCLE_DAYS = 146_097;
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : String(i)));

/**
 * `ms` (since the epoch) as `Date.prototype.toISOString` writes it. The last one is remembered:
 * the records made within one millisecond share it. Written from its civil date, computed here
 * (days to year, month and day in the proleptic Gregorian calendar, as ECMAScript's time values
 * are), not by a `Date`: the embedded store keeps a record's times as numbers and writes them
 * back as text at each read of its fields (packedRecords.ts), and a `Date` and its
 * toISOString were ~7.6k instructions a time, ~90k of a plain echo run's main thread on 100
 * threads (issue 91). A time outside the years 0000–9999, or not a whole millisecond, is left to
 * toISOString (which writes it with a sign, or throws).
 */
export function isoOf(ms: number): string {
  if (ms !== lastMs) {
    lastText = ms >= FIRST_MS && ms <= LAST_MS && Number.isInteger(ms) ? civilIso(ms) : new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}

function civilIso(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // the civil date of a day count, years starting in March (so a leap day ends its year)
  const z = days + EPOCH_DAYS;
  const era = Math.floor(z / CYCLE_DAYS);
  const dayOfEra = z - era * CYCLE_DAYS;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const milli = rest - seconds * 1000;
  const t = TWO_DIGITS;
  return `${t[Math.floor(year / 100)]}${t[year % 100]}-${t[month]}-${t[day]}T${t[hours]}:${t[minutes]}:${t[seconds]}.${milli < 100 ? '0' : ''}${t[milli < 100 ? milli : Math.floor(milli / 10)]}${milli < 100 ? '' : milli % 10}Z`;
}

/** The days from 1970-01-01 of a civil date (civilIso's inverse). */
function daysOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * CYCLE_DAYS + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - EPOCH_DAYS;
}

/** The number of the digits of `text` from `from` to `to` (exclusive), -1 if a character is not a digit. */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i += 1) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/**
 * The milliseconds of a time's text when it is exactly what `isoOf` writes for them, NaN
 * otherwise. The text `isoOf` gave last is known at once (a record made now: its created_at and
 * updated_at, packed by the store as it is written); any other is read digit by digit, each
 * field in its range, no `Date.parse` (issue 91: the store packs the times of every record it
 * writes; a parse and the toISOString that checked it were ~11k instructions a time).
 */
export function msOfIso(text: string): number {
  if (text === lastText) return lastMs;
  if (
    text.length !== 24 ||
    text.charCodeAt(4) !== 45 /* - */ ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 /* T */ ||
    text.charCodeAt(13) !== 58 /* : */ ||
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(19) !== 46 /* . */ ||
    text.charCodeAt(23) !== 90 /* Z */
  )
    return NaN;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hours = digits(text, 11, 13);
  const minutes = digits(text, 14, 16);
  const seconds = digits(text, 17, 19);
  const milli = digits(text, 20, 23);
  if (year < 0 || month < 1 || month > 12 || day < 1 || hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59 || milli < 0)
    return NaN;
  if (day > (month === 2 ? (isLeap(year) ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31)) return NaN;
  return daysOf(year, month, day) * DAY_MS + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + milli;
}

export const nowIso = (): string => isoOf(Date.now());

let lastMicros = 0;

export function timestamp(): string {
  const micros = Math.max(Date.now() * 1000, lastMicros + 1);
  lastMicros = micros;
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return `${iso.slice(0, -1)}${String(micros % 1000).padStart(3, '0')}Z`;
}
