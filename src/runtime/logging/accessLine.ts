// The access line's fields (one line per answered request, `"msg":"request"`) as the JSON text
// pino writes for an object's properties: `,"method":"GET","path":"/ok",…`, by string
// concatenation. Given to pino as an object, each field went through pino's serializer,
// redaction and stringifier lookups by key and type: ~1.6 µs a line, where these six fields of
// known types need only be joined (~0.3 µs). The line is pino's all the same (logger.ts).

/** What the access line of an answered request says. */
export interface AccessLine {
  method: string;
  /** The request's path, without its query. */
  path: string;
  status: number;
  /** Milliseconds from the request to the end of its reply, to a tenth. */
  ms: number;
  request_id: string;
  /** The operationId, `custom` for http.app routes, `unmatched` for everything else. */
  operation: string;
  /**
   * The request id is one the server made (requestIds.ts: hex digits, a dash, a count in base
   * 36, nothing to escape), so it is not tested again; not written. One a client sent is tested.
   */
  requestIdMade?: boolean;
}

/** `text` as a JSON string: as it is, between quotes, when nothing in it needs escaping (a path, an id, a name). */
export function jsonString(text: string): string {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    // a quote, a backslash, a control character or half of a surrogate pair: escaped as JSON.stringify does
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return JSON.stringify(text);
  }
  return '"' + text + '"';
}

/** A number as JSON writes it: one JSON cannot hold (NaN, Infinity) is null, as pino and JSON.stringify write it. */
const jsonNumber = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

/**
 * A number of tenths (the line's `ms`: `Math.round(x * 10) / 10`) as `String` writes it, from
 * its integer parts: a double's shortest text costs ~0.3 µs a line, two small integers' ~0.05.
 * Any other number goes by `jsonNumber`.
 */
export function jsonTenths(n: number): string {
  const tenths = Math.round(n * 10);
  if (tenths >= 0 && tenths < 1e15 && tenths / 10 === n) {
    const whole = Math.floor(tenths / 10);
    const tenth = tenths - whole * 10;
    return tenth === 0 ? String(whole) : whole + '.' + tenth;
  }
  return jsonNumber(n);
}

/**
 * A character a JSON string escapes (a control character, a quote, a backslash) or half of a
 * surrogate pair: any but a space, `!`, `#` to `[`, `]` to U+D7FF and U+E000 to U+FFFF, as
 * `jsonString` tests them.
 */
const NEEDS_ESCAPE = /[^ !#-[\]-\ud7ff\ue000-\uffff]/;

/**
 * The last text of a field found to need no escaping. A server's lines repeat a few methods and
 * operations (the same strings, most often the very same objects), and a text equal to one
 * tested is as plain: one comparison a line instead of the pattern's run.
 */
class LastPlain {
  private text = '';

  /** Whether `text` needs no escaping. */
  plain(text: string): boolean {
    if (text === this.text) return true;
    if (NEEDS_ESCAPE.test(text)) return false;
    this.text = text;
    return true;
  }
}

const plainMethod = new LastPlain();
const plainOperation = new LastPlain();

/**
 * The line's fields as pino writes an object's properties, each after a comma, in this order.
 * Each of the four texts is tested for a character to escape on its own (the path and the
 * request id by the pattern, the method and the operation by the last plain one's equal or the
 * pattern), and when none has one (a request's path, id and operation almost always) each is
 * put between the quotes of the text around it: 9 joins of the line where `jsonString` made 17.
 * One pattern over the four texts' join, as before, made V8 flatten the joined rope and run the
 * pattern through its runtime (a subject that is not one flat string leaves the builtin's fast
 * path): ~1,500 instructions of ~5,900 a line (a callgrind count of 100,000 lines through the
 * buffered sink, session 36). A request id the server made is not tested at all: it is a join
 * of its prefix and count (a rope, so the pattern left its fast path for it alone, ~500
 * instructions a line by the route's count).
 */
export function accessFields(line: AccessLine): string {
  const { method, path, request_id: requestId, operation } = line;
  if (
    NEEDS_ESCAPE.test(path) ||
    (line.requestIdMade !== true && NEEDS_ESCAPE.test(requestId)) ||
    !plainMethod.plain(method) ||
    !plainOperation.plain(operation)
  ) {
    return (
      ',"method":' +
      jsonString(method) +
      ',"path":' +
      jsonString(path) +
      ',"status":' +
      jsonNumber(line.status) +
      ',"ms":' +
      jsonTenths(line.ms) +
      ',"request_id":' +
      jsonString(requestId) +
      ',"operation":' +
      jsonString(operation)
    );
  }
  return (
    ',"method":"' +
    method +
    '","path":"' +
    path +
    '","status":' +
    jsonNumber(line.status) +
    ',"ms":' +
    jsonTenths(line.ms) +
    ',"request_id":"' +
    requestId +
    '","operation":"' +
    operation +
    '"'
  );
}
