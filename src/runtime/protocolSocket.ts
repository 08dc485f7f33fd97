// The thread-centric protocol over a WebSocket (GET /threads/{id}/stream/events upgraded), as
// upstream's server serves it: commands in band, each answered in the protocol's envelope;
// `subscription.subscribe` opens the thread's event stream with the subscription's filter and
// sends its events on the socket, `subscription.unsubscribe` closes it. Every command and
// every subscription is the HTTP route's own (POST …/commands, POST …/stream/events) asked
// on this server with the upgrade request's headers, so the same authentication, tenancy,
// stream caps and event feed apply: there is no second way in, and no second event source.
// Messages are read as spec/protocol.openrpc.json says (its generated validators, through
// shared/protocolCommands.ts): a message that is no command, and the params of the two
// commands answered here, are refused in the protocol's error envelope.
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { paramsProblem, readCommand } from '../shared/protocolCommands.ts';
import { SSE_UNSENT_LIMIT } from './sse.ts';

const PATH = /^\/threads\/([^/?]+)\/stream\/events(?:\?.*)?$/;
/** Headers that belong to the upgrade itself, not to the caller. */
const HOP = new Set(['connection', 'upgrade', 'host', 'content-length', 'content-type', 'transfer-encoding', 'keep-alive']);

type Dict = Record<string, unknown>;

/** What a server shutting down does with its protocol WebSockets. */
export interface ProtocolSockets {
  /** Tells every client the server is going away (close code 1001): a client reconnects elsewhere or later. */
  goingAway(): void;
  /** Cuts the sockets still open (a client that did not answer the close). */
  terminate(): void;
}

/** Serves the protocol's WebSocket on `http`; `baseUrl` is this server's own address. */
export function serveProtocolSocket(http: Server, baseUrl: () => string): ProtocolSockets {
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = PATH.exec(req.url ?? '');
    if (!match) {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => new ProtocolSocket(ws, decodeURIComponent(match[1]!), callerHeaders(req), baseUrl()));
  });
  http.once('close', () => wss.close());
  return {
    goingAway: () => {
      for (const ws of wss.clients) ws.close(1001, 'server shutting down');
    },
    terminate: () => {
      for (const ws of wss.clients) ws.terminate();
    },
  };
}

function callerHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP.has(name) || name.startsWith('sec-websocket-')) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

class ProtocolSocket {
  private readonly subscriptions = new Map<string, AbortController>();
  /** Events already sent on this socket: subscriptions that overlap send each event once. */
  private readonly sent = new Set<string>();

  constructor(
    private readonly ws: WebSocket,
    private readonly threadId: string,
    private readonly headers: Record<string, string>,
    private readonly baseUrl: string,
  ) {
    ws.on('message', (data) => void this.receive(String(data)));
    ws.on('close', () => this.closeAll());
    ws.on('error', () => this.closeAll());
  }

  private send(message: unknown): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  private route(suffix: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    return fetch(`${this.baseUrl}/threads/${encodeURIComponent(this.threadId)}/${suffix}`, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  }

  private async receive(text: string): Promise<void> {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return this.send({ type: 'error', id: null, error: 'invalid_argument', message: 'Protocol commands must be valid JSON.' });
    }
    const read = readCommand(message);
    if ('problem' in read) return this.send({ type: 'error', id: read.id, error: 'invalid_argument', message: read.problem });
    const { command } = read;
    const id = command.id;
    const params = command.params ?? {};
    try {
      if (command.method === 'subscription.subscribe' || command.method === 'subscription.unsubscribe') {
        const problem = paramsProblem(command.method, params);
        if (problem) return this.send({ type: 'error', id, error: 'invalid_argument', message: problem });
        if (command.method === 'subscription.subscribe') return await this.subscribe(id, params);
        return this.unsubscribe(id, params.subscription_id as string);
      }
      if (command.method === 'subscription.reconnect')
        return this.send({ type: 'error', id, error: 'not_supported', message: 'subscription.reconnect is not supported by this server yet.' });
      const reply = await this.route('commands', command);
      this.send(reply.ok ? await reply.json() : failure(id, reply.status, await reply.text()));
    } catch (err) {
      this.send({ type: 'error', id, error: 'unknown_error', message: err instanceof Error ? err.message : 'Unknown protocol error' });
    }
  }

  /**
   * The route's event stream, read with node:http rather than fetch: the stream lives as long
   * as the subscription and carries every event of the thread, and fetch's web streams cost
   * several times node's per chunk (issue 57: a tenth of the server's time under fan-out).
   */
  private openStream(body: unknown, signal: AbortSignal): Promise<IncomingMessage> {
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        `${this.baseUrl}/threads/${encodeURIComponent(this.threadId)}/stream/events`,
        { method: 'POST', headers: { ...this.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }, signal },
        resolve,
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  private async subscribe(id: number, params: Dict): Promise<void> {
    const filter: Dict = { channels: params.channels };
    for (const key of ['namespaces', 'depth', 'since']) if (params[key] !== undefined) filter[key] = params[key];
    const stop = new AbortController();
    const stream = await this.openStream(filter, stop.signal);
    if (stream.statusCode !== 200) return this.send(failure(id, stream.statusCode ?? 500, await text(stream)));
    const subscriptionId = randomUUID();
    this.subscriptions.set(subscriptionId, stop);
    this.send({ type: 'success', id, result: { subscription_id: subscriptionId } });
    try {
      // each event's JSON goes out as the route wrote it (its `id:` is its event_id), not parsed and made again
      for await (const { id: eventId, data } of sseFrames(stream)) {
        if (eventId !== undefined) {
          if (this.sent.has(eventId)) continue;
          this.sent.add(eventId);
        }
        if (this.ws.readyState !== this.ws.OPEN) break;
        // past the bound the stream is read on only once the socket has taken this event, so
        // a client that stops reading holds its events in their run's log, not in this server
        if (this.ws.bufferedAmount > SSE_UNSENT_LIMIT) await new Promise<unknown>((resolve) => this.ws.send(data, resolve));
        else this.ws.send(data);
      }
    } catch {
      // the subscription ended (unsubscribed, or the socket closed)
    } finally {
      this.subscriptions.delete(subscriptionId);
    }
  }

  private unsubscribe(id: number, subscriptionId: string): void {
    const stop = this.subscriptions.get(subscriptionId);
    if (!stop) return this.send({ type: 'error', id, error: 'no_such_subscription', message: `Unknown subscription: ${subscriptionId}` });
    stop.abort();
    this.subscriptions.delete(subscriptionId);
    this.send({ type: 'success', id, result: {} });
  }

  private closeAll(): void {
    for (const stop of this.subscriptions.values()) stop.abort();
    this.subscriptions.clear();
  }
}

/** A refused route's answer in the protocol's envelope (a missing thread, or another owner's, is `not_found`). */
function failure(id: number, status: number, text: string): Dict {
  let body: Dict = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Dict;
  } catch {
    // not JSON: the status says it
  }
  const message = typeof body.detail === 'string' ? body.detail : typeof body.message === 'string' ? body.message : `HTTP ${status}`;
  const error = status === 404 ? 'not_found' : status === 409 ? 'conflict' : status === 429 ? 'resource_exhausted' : 'invalid_argument';
  return { type: 'error', id, error, message };
}

async function text(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let body = '';
  for await (const chunk of res) body += chunk as string;
  return body;
}

/** Each event of a Server-Sent Events body: its `id:` and its `data:` lines (an event ends at a blank line). */
async function* sseFrames(body: IncomingMessage): AsyncGenerator<{ id?: string; data: string }> {
  body.setEncoding('utf8');
  let pending = '';
  let data: string[] = [];
  let id: string | undefined;
  for await (const chunk of body) {
    const lines = (pending + (chunk as string)).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      else if (line.startsWith('id:')) id = line.slice(line.startsWith('id: ') ? 4 : 3);
      else if (line === '' && data.length > 0) {
        yield { id, data: data.join('\n') };
        data = [];
        id = undefined;
      } else if (line === '') id = undefined;
    }
  }
}
