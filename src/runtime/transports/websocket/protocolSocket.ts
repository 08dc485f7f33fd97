// The thread-centric protocol over a WebSocket (GET /threads/{id}/stream/events upgraded), as
// upstream's server serves it: commands in band, each answered in the protocol's envelope;
// `subscription.subscribe` opens the thread's event stream with the subscription's filter and
// sends its events on the socket, `subscription.unsubscribe` closes it. Each subscription sends
// every event its stream lets through, as upstream's session does (one frame per matching
// subscription): the SDK hands an event to the subscriptions it holds when the event arrives, so a
// later subscription sees what an earlier one was sent only if it is sent again.
//
// The socket comes in by the REST door (socketDoor.ts): credentials, tenant and custom auth
// are checked at the upgrade, before any `101`, and a refusal is REST's answer. Every command
// and every subscription is then the HTTP route's own operation (sendProtocolCommand,
// streamThreadEvents) called in process with the caller the upgrade admitted, so the same
// validation, tenancy, stream caps and event feed apply: no second way in, no second event
// source. A socket holds a slot of its client's (tenant, else address) as a stream does; its
// messages are capped as request bodies are; one that is idle, or whose peer is gone, is closed.
// Messages are read as spec/protocol.openrpc.json says (its generated validators, through
// shared/protocolCommands.ts): a message that is no command, and the params of the two
// commands answered here, are refused in the protocol's error envelope.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { WebSocket, WebSocketServer } from 'ws';
import { paramsProblem, readCommand } from '../../../shared/protocolCommands.ts';
import { SSE_UNSENT_LIMIT } from '../sse.ts';
import { scheduleWrite, unscheduleWrite, type HeldFrames } from '../streamWrites.ts';
import { webSocketTextFrame, webSocketTextHeader } from './webSocketFrame.ts';
import { isPushable, type PushableStream } from '../pushedStream.ts';
import type { SseEvent } from '../../contract.ts';
import { refuseUpgrade, type AdmittedSocket, type SocketDoor } from './socketDoor.ts';
import { UnsettledUpgrades } from './unsettledUpgrades.ts';
import { RefusalPace } from './refusalPace.ts';
import type { HttpReply } from '../../errors.ts';
import { quietAbort } from '../../../shared/quietAbort.ts';

const PATH = /^\/threads\/([^/?]+)\/stream\/events(?:\?.*)?$/;

type Dict = Record<string, unknown>;

/**
 * Upgrades one address may have between its request and its 101 or its refusal's close (a slow
 * custom auth, a client that reads no answer). Each admitted socket is capped apart (socketSlots).
 */
const MAX_UNSETTLED_UPGRADES_PER_ADDRESS = 64;

/**
 * Refused upgrades one address has answered at once, then a second (refusalPace.ts): a client
 * refused by mistake (a key mistyped, a thread gone) never waits; one that floods waits its turn.
 */
const REFUSALS_PER_SECOND = 100;
const REFUSAL_BURST = 300;

export interface ProtocolSocketLimits {
  /** The largest message (and frame) a client may send, in bytes: as a request body's. */
  maxMessageBytes: number;
  /**
   * A socket without a subscription that sends nothing for this long is closed; a peer that
   * does not answer a ping sent this long ago is cut.
   */
  idleMs: number;
}

/** What a server shutting down does with its protocol WebSockets. */
export interface ProtocolSockets {
  /** Tells every client the server is going away (close code 1001): a client reconnects elsewhere or later. */
  goingAway(): void;
  /** Cuts the sockets still open (a client that did not answer the close). */
  terminate(): void;
}

/** Serves the protocol's WebSocket on `http`, admitting each upgrade by `door`. */
export function serveProtocolSocket(http: Server, door: SocketDoor, limits: ProtocolSocketLimits): ProtocolSockets {
  // ws is imported with the first upgrade, not with the server: a CommonJS package, it cost
  // ~0.1 s of a start that most servers' first minutes never use
  let wss: WebSocketServer | undefined;
  let made: Promise<WebSocketServer> | undefined;
  const server = () =>
    (made ??= import('ws').then(({ WebSocketServer }) => {
      // per-message deflate stays off (the default): a small compressed frame cannot inflate into a large message
      wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes });
      return wss;
    }));
  const unsettled = new UnsettledUpgrades(MAX_UNSETTLED_UPGRADES_PER_ADDRESS);
  const pace = new RefusalPace(REFUSALS_PER_SECOND, REFUSAL_BURST);
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // a client that goes while it is admitted leaves nothing behind (an error unheard would end the process)
    socket.on('error', () => socket.destroy());
    const address = req.socket.remoteAddress ?? '';
    // one address's sockets still being admitted or refused are bounded: past that, cut unanswered
    if (!unsettled.take(address, socket)) return socket.destroy();
    // an address's refusals past its budget are answered when it allows, the socket held meanwhile
    // (in a turn of the loop of its own, refusalPace.ts)
    const refuse = (reply: HttpReply) => {
      const cancel = pace.schedule(address, () => refuseUpgrade(socket, reply));
      socket.once('close', cancel);
    };
    const match = PATH.exec(req.url ?? '');
    if (!match) return refuse({ status: 404, body: { detail: 'Not Found' } });
    // ws before the admission: a call admitted holds a stream slot until its socket ends
    void server()
      .then((wss) =>
        door.admit(req).then((admitted) => {
          if (!('call' in admitted)) return refuse(admitted);
          if (socket.destroyed) return admitted.release();
          unsettled.settle(socket);
          wss.handleUpgrade(req, socket, head, (ws) => new ProtocolSocket(ws, socket, admitted, limits.idleMs));
        }),
      )
      .catch(() => refuseUpgrade(socket, { status: 500, body: { detail: 'Internal Server Error' } }));
  });
  http.once('close', () => wss?.close());
  return {
    goingAway: () => {
      for (const ws of wss?.clients ?? []) ws.close(1001, 'server shutting down');
    },
    terminate: () => {
      for (const ws of wss?.clients ?? []) ws.terminate();
    },
  };
}

class ProtocolSocket {
  private readonly subscriptions = new Map<string, AbortController>();
  /** Commands still being answered: a socket awaiting an answer is not idle. */
  private pending = 0;
  /** Whether the client sent anything (a message, a pong) since the last tick. */
  private heard = true;
  private idleSince = Date.now();
  private readonly ticker: NodeJS.Timeout;
  /** Whether the connection is corked until its frames are written (see sendEvent). */
  private corked = false;
  /** Its frames, as streamWrites.ts writes them: uncorking the connection writes them at once. */
  private readonly held: HeldFrames = {
    write: () => {
      if (!this.corked) return;
      this.corked = false;
      this.connection.uncork();
    },
  };

  constructor(
    private readonly ws: WebSocket,
    /** The upgraded connection under `ws`: corked while a turn's events are sent (sendEvent). */
    private readonly connection: Duplex,
    private readonly door: AdmittedSocket,
    private readonly idleMs: number,
  ) {
    ws.on('message', (data) => {
      this.heard = true;
      this.idleSince = Date.now();
      void this.receive(String(data));
    });
    ws.on('pong', () => (this.heard = true));
    ws.on('close', () => this.closeAll());
    ws.on('error', () => this.closeAll());
    this.ticker = setInterval(() => this.tick(), Math.max(1, Math.floor(idleMs / 2)));
    this.ticker.unref();
  }

  /** Cuts a peer that stopped answering pings; closes a socket that has been idle for `idleMs`. */
  private tick(): void {
    if (!this.heard) return void this.ws.terminate();
    if (this.subscriptions.size === 0 && this.pending === 0 && Date.now() - this.idleSince >= this.idleMs) {
      return void this.ws.close(1000, 'idle');
    }
    this.heard = false;
    this.ws.ping();
  }

  private send(message: unknown): void {
    this.sendText(JSON.stringify(message));
  }

  /** An answer to a command goes out at once, after the events held (it is not held with them). */
  private sendText(text: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    unscheduleWrite(this.held);
    this.held.write();
    this.ws.send(text);
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
    this.pending += 1;
    try {
      if (command.method === 'subscription.subscribe' || command.method === 'subscription.unsubscribe') {
        const problem = paramsProblem(command.method, params);
        if (problem) return this.send({ type: 'error', id, error: 'invalid_argument', message: problem });
        if (command.method === 'subscription.subscribe') return await this.subscribe(id, params);
        return this.unsubscribe(id, params.subscription_id as string);
      }
      if (command.method === 'subscription.reconnect')
        return this.send({ type: 'error', id, error: 'not_supported', message: 'subscription.reconnect is not supported by this server yet.' });
      const stop = new AbortController();
      const reply = await this.door.call('sendProtocolCommand', command, stop.signal);
      if ('json' in reply && reply.status === 200) {
        this.sendText(reply.json);
      } else this.send(failure(id, reply.status, 'json' in reply ? reply.json : ''));
    } catch (err) {
      this.send({ type: 'error', id, error: 'unknown_error', message: err instanceof Error ? err.message : 'Unknown protocol error' });
    } finally {
      this.pending -= 1;
      this.idleSince = Date.now();
    }
  }

  private async subscribe(id: number, params: Dict): Promise<void> {
    const filter: Dict = { channels: params.channels };
    for (const key of ['namespaces', 'depth', 'since']) if (params[key] !== undefined) filter[key] = params[key];
    const stop = new AbortController();
    const reply = await this.door.call('streamThreadEvents', filter, stop.signal);
    if (!('stream' in reply) || reply.status !== 200) {
      quietAbort(stop);
      return this.send(failure(id, reply.status, 'json' in reply ? reply.json : ''));
    }
    if (this.ws.readyState !== this.ws.OPEN) return void quietAbort(stop);
    const subscriptionId = randomUUID();
    this.subscriptions.set(subscriptionId, stop);
    this.send({ type: 'success', id, result: { subscription_id: subscriptionId } });
    if (isPushable(reply.stream)) return this.pushed(reply.stream, subscriptionId, stop);
    // the stream ends when `stop` aborts (an unsubscribe, the socket closing): its events are
    // read without racing each against that (a race per event left a reaction on the pending
    // abort for every event the subscription sent)
    const events = reply.stream[Symbol.asyncIterator]();
    // asked at every event: a flag, not the signal's getter (issue 67)
    let stopped = stop.signal.aborted;
    stop.signal.addEventListener('abort', () => (stopped = true), { once: true });
    try {
      while (!stopped && this.ws.readyState === this.ws.OPEN) {
        const next = await events.next();
        if (next.done || stopped) break;
        const frame = textFrame(next.value);
        // past the bound the stream is read on only once the socket has taken this event, so
        // a client that stops reading holds its events in their run's log, not in this server
        if (this.ws.bufferedAmount > SSE_UNSENT_LIMIT) await new Promise<void>((resolve) => this.sendEvent(frame, resolve));
        else this.sendEvent(frame);
      }
    } catch {
      // the subscription ended (unsubscribed, or the socket closed)
    } finally {
      this.subscriptions.delete(subscriptionId);
      quietAbort(stop);
      void events.return?.()?.catch(() => undefined);
      this.idleSince = Date.now();
    }
  }

  /**
   * A subscription whose events are pushed in batches (issue 87): each batch is written at once,
   * one write of frames made once per batch; past SSE_UNSENT_LIMIT unsent the subscription is
   * paused until the connection drains. A peer that reads nothing answers no ping and is cut (`tick`).
   */
  private pushed(stream: PushableStream<SseEvent>, subscriptionId: string, stop: AbortController): void {
    const pushed = stream.push({
      deliver: (batch) => {
        if (this.ws.readyState !== this.ws.OPEN) return true;
        if (batch.length) this.connection.write(batchFrames(batch));
        if (this.connection.writableLength <= SSE_UNSENT_LIMIT) return true;
        const drained = () => {
          this.connection.off('drain', drained);
          this.connection.off('close', drained);
          pushed.resume();
        };
        this.connection.on('drain', drained);
        this.connection.on('close', drained);
        return false;
      },
      fail: () => quietAbort(stop),
    });
    const end = () => {
      pushed.close();
      this.subscriptions.delete(subscriptionId);
      this.idleSince = Date.now();
    };
    if (stop.signal.aborted) end();
    else stop.signal.addEventListener('abort', end, { once: true });
  }

  /**
   * Sends an event, a whole text message's frame (webSocketFrame.ts), on the connection under
   * ws: the same bytes for every socket of the thread, not framed by ws for each (a server's
   * frames are unmasked, and ws writes its own messages at once, deflate being off, so they
   * keep their order with these). The events ready in one turn of the event loop (a run's step
   * publishes several, to every subscriber of its thread) go out in one write: the connection
   * is corked at the first and uncorked at the turn's end (streamWrites.ts), as the SSE writer
   * writes its frames (a system call per event per socket otherwise: issue 67, 4 s of 56 with
   * 1,000 subscribers).
   */
  private sendEvent(frame: Buffer, sent?: () => void): void {
    // after a close frame (ws's close, its peer's), nothing more is written
    if (this.ws.readyState !== this.ws.OPEN) return void sent?.();
    if (!this.corked) {
      this.corked = true;
      this.connection.cork();
      scheduleWrite(this.held);
    }
    this.connection.write(frame, sent && (() => sent()));
  }

  private unsubscribe(id: number, subscriptionId: string): void {
    const stop = this.subscriptions.get(subscriptionId);
    if (!stop) return this.send({ type: 'error', id, error: 'no_such_subscription', message: `Unknown subscription: ${subscriptionId}` });
    quietAbort(stop);
    this.subscriptions.delete(subscriptionId);
    this.send({ type: 'success', id, result: {} });
  }

  private closeAll(): void {
    clearInterval(this.ticker);
    unscheduleWrite(this.held);
    for (const stop of this.subscriptions.values()) quietAbort(stop);
    this.subscriptions.clear();
    this.door.release();
  }
}

/** A refused operation's answer in the protocol's envelope (a missing thread, or another owner's, is `not_found`). */
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

// A frozen event is one object for all its subscribers (a thread's protocol events): its
// frame is made once, and every socket is sent the same bytes (issue 67). An event whose data
// comes as bytes (SseEvent.dataBytes) is framed of them, a copy, and its frame is not kept
// (issue 87: kept for its log's life, it was copied by the main thread's scavenges).
const frameOf = new WeakMap<SseEvent, Buffer>();

const batchFramesOf = new WeakMap<readonly SseEvent[], Buffer>();

/** A batch's frames as one buffer, made once per frozen batch (a pushed stream's: the same for every socket at that place). */
function batchFrames(batch: readonly SseEvent[]): Buffer {
  if (batch.length === 1) return textFrame(batch[0]!);
  let frames = Object.isFrozen(batch) ? batchFramesOf.get(batch) : undefined;
  if (!frames) {
    frames = Buffer.concat(batch.flatMap(framePieces));
    if (Object.isFrozen(batch)) batchFramesOf.set(batch, frames);
  }
  return frames;
}

/** The event's frame; its data read only to make one (a protocol event's text is made when read: protocol.ts). */
function textFrame(event: SseEvent): Buffer {
  const pieces = framePieces(event);
  return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
}

/** The event's frame in pieces: a header and its data's bytes when it has them, else its frame made once per frozen event. */
function framePieces(event: SseEvent): readonly Uint8Array[] {
  const data = event.dataBytes?.();
  if (data === undefined) return [keptFrame(event)];
  return [webSocketTextHeader(data.reduce((n, piece) => n + piece.length, 0)), ...data];
}

function keptFrame(event: SseEvent): Buffer {
  const encode = () => {
    const data = event.data;
    return webSocketTextFrame(Buffer.from(typeof data === 'string' ? data : JSON.stringify(data)));
  };
  if (!Object.isFrozen(event)) return encode();
  let frame = frameOf.get(event);
  if (!frame) frameOf.set(event, (frame = encode()));
  return frame;
}
