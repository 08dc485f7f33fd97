// The server's responses: X-Request-Id goes out among the answer's own headers. Set with
// setHeader when the request arrived, it made Node take writeHead's slow path on every answer
// (each of the answer's headers set and checked one by one, then read back into the head):
// 3.0 µs a response against 1.9 µs with the id passed to writeHead beside the others (a
// ServerResponse alone, 200,000 times), ~2% of a `GET /ok`. The id is held until the head is
// written and put in it then, unless the answer names one itself or one was set already.
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Whether `headers` (a writeHead object) names X-Request-Id, in any case. */
function namesRequestId(headers: OutgoingHttpHeaders): boolean {
  for (const name in headers) if (name.length === REQUEST_ID_HEADER.length && name.toLowerCase() === 'x-request-id') return true;
  return false;
}

export class RequestIdResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The id still to be sent; undefined once the head holds it (or when there is none). */
  private pendingRequestId: string | undefined = undefined;

  /** Sends `id` as X-Request-Id with the head, unless the answer sets one of its own. */
  sendRequestId(id: string): void {
    this.pendingRequestId = id;
  }

  /** The id as a header now: for code that reads the response's headers before its head is written. */
  setRequestIdNow(): void {
    const id = this.pendingRequestId;
    this.pendingRequestId = undefined;
    if (id !== undefined && !this.headersSent && !this.hasHeader(REQUEST_ID_HEADER)) this.setHeader(REQUEST_ID_HEADER, id);
  }

  // every head goes through here: an explicit writeHead, and Node's implicit one on a first write or end
  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const id = this.pendingRequestId;
    if (id !== undefined && !this.headersSent) {
      this.pendingRequestId = undefined;
      const at = typeof rest[0] === 'string' ? 1 : 0;
      const given = rest[at] as OutgoingHttpHeaders | unknown[] | undefined;
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
}
