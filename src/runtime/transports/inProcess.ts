// The in-process entry: a fetch-style `handle(Request) → Response` over the server's own
// request listener, so a request answered here went through everything a request on the port
// goes through (the pipeline: match, auth, body limits, validation, serialisation, the reply
// check) without a socket. The request is injected with light-my-request, made for exactly
// this (fastify's inject): a node IncomingMessage/ServerResponse pair with no socket, instead
// of fake sockets written here. It is loaded on the first request, so a server's start does
// not pay for it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/** A node request listener (what `http.createServer` takes). */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** What a raw HTTP client can send that a Request cannot say. */
export interface RawRequestOptions {
  /**
   * The request target sent as it is (`/a2a/%2E`): a Request's URL resolves dot segments and
   * their encodings away, as fetch does; a raw HTTP client sends them.
   */
  rawPath?: string;
}

/** Answers a Request as the server would answer it over HTTP, in process. */
export type FetchHandler = (request: Request, options?: RawRequestOptions) => Promise<Response>;

/** Statuses whose reply has no body (a Response refuses one for them). */
const NO_BODY = new Set([204, 205, 304]);

/**
 * Requests whose reply is still open. A Request made with a signal follows it through an
 * AbortController of its own that undici holds only weakly: once the Request is garbage, the
 * client's abort reaches nobody and a stream would stay open (and hold its slot) for ever.
 */
const answering = new Set<Request>();

export function inProcessHandler(listener: RequestListener): FetchHandler {
  return async (request, options = {}) => {
    const { default: inject } = await import('light-my-request');
    const url = new URL(request.url);
    const headers: Record<string, string | string[]> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const payload = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    // as fetch: a request whose client has gone already is not sent
    const { signal } = request;
    if (signal?.aborted) throw signal.reason;
    // light-my-request parses the target as a URL too: a raw one is put back on the request
    const { rawPath } = options;
    const dispatch: RequestListener = rawPath === undefined ? listener : (req, res) => listener(Object.assign(req, { url: rawPath }), res);
    // The client going is the connection closing, as on a socket: its request and its response
    // destroyed (the pipeline's signal follows the response's close), not the signal handed to
    // inject: light-my-request destroys its reply stream with an AbortError then, an uncaught
    // exception while the reply is not yet answered (nobody reads that stream yet)
    const target: RequestListener = signal
      ? (req, res) => {
          const goes = () => {
            req.destroy();
            res.destroy();
          };
          signal.addEventListener('abort', goes, { once: true });
          answering.add(request);
          res.once('close', () => {
            signal.removeEventListener('abort', goes);
            answering.delete(request);
          });
          dispatch(req, res);
        }
      : dispatch;
    const reply = await inject(target as never, {
      method: request.method as never,
      url: url.pathname + url.search,
      authority: url.host,
      headers,
      ...(payload ? { payload } : {}),
      // a stream (SSE) is answered as it is written, not once it ends
      payloadAsStream: true,
    });
    const res = reply.raw.res as ServerResponse;
    const stream = reply.stream();
    // the client going away (its body cancelled, its request aborted) is the connection
    // closing: the server's response closes, as on a socket, and a stream stops
    const hangUp = () => {
      if (!res.writableFinished) res.destroy();
    };
    stream.once('close', hangUp);
    request.signal?.addEventListener('abort', hangUp, { once: true });
    const replyHeaders = new Headers();
    for (const [name, value] of Object.entries(reply.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) replyHeaders.append(name, String(one));
    }
    const bodyless = NO_BODY.has(reply.statusCode) || request.method === 'HEAD';
    if (bodyless) stream.resume();
    return new Response(bodyless ? null : webStream(stream), {
      status: reply.statusCode,
      statusText: reply.statusMessage,
      headers: replyHeaders,
    });
  };
}

/**
 * The reply's body as a web stream, read as the client reads it (paused while it does not).
 * Not Readable.toWeb: on Node 20 it enqueued a chunk into a stream already closed, an error
 * thrown out of the reply.
 */
function webStream(stream: Readable): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) stream.pause();
      });
      stream.once('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      stream.once('error', (err) => {
        if (settled) return;
        settled = true;
        controller.error(err);
      });
    },
    pull() {
      stream.resume();
    },
    cancel() {
      settled = true;
      stream.destroy();
    },
  });
}
