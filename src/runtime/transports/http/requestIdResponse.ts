// The server's responses: X-Request-Id goes out among the answer's own headers. Set with
// setHeader when the request arrived, it made Node take writeHead's slow path on every answer
// (each of the answer's headers set and checked one by one, then read back into the head):
// 3.0 µs a response against 1.9 µs with the id passed to writeHead beside the others (a
// ServerResponse alone, 200,000 times), ~2% of a `GET /ok`. The id is held until the head is
// written and put in it then, unless the answer names one itself or one was set already.
//
// Where nothing was set one by one (the usual answer: writeHead with its own headers), the id's
// line is written straight after the status line, the place a head object beginning with it
// gave it: the same bytes, without the object made around the answer's headers and without
// Node's checks of the header (its name and value each matched by a regular expression, its
// name lower-cased to look for the headers Node acts on): ~3,300 instructions of a response
// (callgrind, h86r22 in scripts/bench/findings.md).
import { OutgoingMessage, ServerResponse, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Whether `headers` (a writeHead object) names X-Request-Id, in any case. */
function namesRequestId(headers: OutgoingHttpHeaders): boolean {
  for (const name in headers) if (name.length === REQUEST_ID_HEADER.length && name.toLowerCase() === 'x-request-id') return true;
  return false;
}

/**
 * Where Node keeps the headers set one by one (setHeader): null until one is. Found by its name
 * once; on a Node that keeps them otherwise it is undefined, and every head takes the way
 * through Node's writeHead below.
 */
const OUT_HEADERS: symbol | undefined = Object.getOwnPropertySymbols(new OutgoingMessage()).find((s) => s.description === 'kOutHeaders');

/** What Node refuses in a header's value (its checkInvalidHeaderChar): a value with one goes the way Node checks, and is refused as before. */
const UNFIT_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

type StoreHeader = (this: ServerResponse, firstLine: string, headers: unknown) => void;
/** Node's own: turns the status line and the head's headers into the head's text (writeHead calls it). */
const storeHeader = (OutgoingMessage.prototype as unknown as { _storeHeader: StoreHeader })._storeHeader;

export class RequestIdResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The id still to be sent; undefined once the head holds it (or when there is none). */
  private pendingRequestId: string | undefined = undefined;
  /** Whether the pending id is known fit for a header (made by this server). */
  private pendingIdFit = false;
  /** The id's line of the head being written, for `_storeHeader` to put after the status line. */
  private requestIdLine: string | undefined = undefined;

  /** Sends `id` as X-Request-Id with the head, unless the answer sets one of its own; `fit`: made here, nothing in it a header refuses. */
  sendRequestId(id: string, fit = false): void {
    this.pendingRequestId = id;
    this.pendingIdFit = fit;
  }

  /** The id as a header now: for code that reads the response's headers before its head is written. */
  setRequestIdNow(): void {
    const id = this.pendingRequestId;
    this.pendingRequestId = undefined;
    if (id !== undefined && !this.headersSent && !this.hasHeader(REQUEST_ID_HEADER)) this.setHeader(REQUEST_ID_HEADER, id);
  }

  /**
   * Whether a head written now is its connection's last (`Connection: close`): a server that is
   * stopping says so (server.ts's subclass), for the answers still being made when the stop began.
   */
  protected lastOnConnection(): boolean {
    return false;
  }

  // every head goes through here: an explicit writeHead, and Node's implicit one on a first write or end
  override writeHead(statusCode: number, ...rest: unknown[]): this {
    if (this.lastOnConnection() && !this.headersSent) this.setHeader('Connection', 'close');
    const id = this.pendingRequestId;
    if (id !== undefined && !this.headersSent) {
      this.pendingRequestId = undefined;
      const at = typeof rest[0] === 'string' ? 1 : 0;
      const given = rest[at] as OutgoingHttpHeaders | unknown[] | undefined;
      if (
        OUT_HEADERS !== undefined &&
        (this as unknown as Record<symbol, unknown>)[OUT_HEADERS] === null &&
        (given === undefined || given === null || (!Array.isArray(given) && !namesRequestId(given))) &&
        (this.pendingIdFit || !UNFIT_VALUE.test(id))
      ) {
        // nothing set one by one: the id's line goes first among the head's headers (_storeHeader)
        this.requestIdLine = REQUEST_ID_HEADER + ': ' + id + '\r\n';
        try {
          return (super.writeHead as (statusCode: number, ...rest: unknown[]) => this)(statusCode, ...rest);
        } finally {
          // a head refused (a bad status) leaves no line behind for the next one
          this.requestIdLine = undefined;
        }
      }
      if (this.hasHeader(REQUEST_ID_HEADER)) {
        // set already (an http.app middleware): kept
      } else if (given === undefined || given === null) {
        rest[at] = { [REQUEST_ID_HEADER]: id };
      } else if (Array.isArray(given)) {
        this.setHeader(REQUEST_ID_HEADER, id);
      } else if (!namesRequestId(given)) {
        rest[at] = { [REQUEST_ID_HEADER]: id, ...given };
      }
    }
    return (super.writeHead as (statusCode: number, ...rest: unknown[]) => this)(statusCode, ...rest);
  }

  /** Node's, with the id's line (when writeHead left one) after the status line. */
  _storeHeader(firstLine: string, headers: unknown): void {
    const line = this.requestIdLine;
    if (line === undefined) return storeHeader.call(this, firstLine, headers);
    this.requestIdLine = undefined;
    return storeHeader.call(this, firstLine + line, headers);
  }
}

/** Whether this Node's heads get the id by the status line (its slot of headers set one by one was found). */
export const ID_LINE_IN_HEAD = OUT_HEADERS !== undefined;
