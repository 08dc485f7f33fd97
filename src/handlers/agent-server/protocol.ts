// The thread-centric streaming protocol: sendProtocolCommand (POST /threads/{id}/commands),
// streamThreadEvents (POST /threads/{id}/stream/events, Server-Sent Events) and
// openThreadEventSocket (GET on the same path: the WebSocket, upgraded by
// runtime/transports/websocket/protocolSocket.ts before any handler; what reaches the handler is a GET without
// the upgrade). All only reach the domain's protocol service (domain/agent/protocol/).
import type { SseEvent } from '../../runtime/contract.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { ProtocolService } from '../../domain/agent/service.ts';
import { eventJson, eventJsonBytes, type ProtocolEvent } from '../../domain/agent/protocol/events.ts';
import type { FeedStream } from '../../domain/agent/protocol/threadFeed.ts';
import type { PushableStream } from '../../runtime/transports/pushedStream.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { failed } from './failures.ts';

// One SSE event per protocol event and batch: a pushed batch's (below) is one for all the
// subscribers it goes to, and the writers (runtime/transports/sse.ts, the protocol WebSocket)
// make its bytes once per batch, so all the subscribers of a thread are sent the same bytes
// (issue 67). Its data is the event's text made when read (eventJson), or, as the writers read
// it, the bytes of the text its log entry holds (eventJsonBytes): they copy those into their
// frames and keep nothing per event (issue 87: an SSE event kept per protocol event, and each
// writer's frame of it, lived as long as the event's log and were copied by the main thread's
// scavenges; a text kept here would be flattened by them into a copy of the event).
class ProtocolSseEvent implements SseEvent {
  readonly id: string;
  readonly event: string;

  constructor(private readonly source: ProtocolEvent) {
    this.id = source.event_id;
    this.event = source.method;
  }

  get data(): string {
    return eventJson(this.source);
  }

  dataBytes(): readonly Uint8Array[] | undefined {
    return eventJsonBytes(this.source);
  }
}

const sseEvent = (event: ProtocolEvent): SseEvent => new ProtocolSseEvent(event);

// A pushed batch of protocol events (the same array for every subscriber at the same place)
// as one frozen batch of SSE events, made once: the SSE writer's bytes are made once per batch.
const sseBatchOf = new WeakMap<readonly ProtocolEvent[], readonly SseEvent[]>();

function sseBatch(events: readonly ProtocolEvent[]): readonly SseEvent[] {
  let made = sseBatchOf.get(events);
  if (!made) sseBatchOf.set(events, (made = Object.freeze(events.map(sseEvent))));
  return made;
}

/**
 * The events as SSE events: pushed to the writer in batches (issue 87), or each asked of the
 * events as the stream asks for one. The latter is not an async generator: one of those adds
 * its own promises per event (to every subscriber: issue 67), and holds a `return` until its
 * pending read ends — a subscriber gone would be let go only at the thread's next event.
 */
function toSse(events: FeedStream): PushableStream<SseEvent> {
  return {
    push: (sink) => events.push({ deliver: (batch) => sink.deliver(sseBatch(batch)), fail: (err) => sink.fail(err) }),
    [Symbol.asyncIterator]() {
      const read = events[Symbol.asyncIterator]();
      const next = (): Promise<IteratorResult<SseEvent>> =>
        read.next().then((got) => (got.done ? { done: true, value: undefined } : { done: false, value: sseEvent(got.value) }));
      const stop = async (): Promise<IteratorResult<SseEvent>> => {
        await read.return?.();
        return { done: true, value: undefined };
      };
      return { next, return: stop };
    },
  };
}

export function protocolHandlers(
  protocolFor: (ctx: RequestContext) => ProtocolService,
): Pick<AgentServerAreaHandlers, 'sendProtocolCommand' | 'streamThreadEvents' | 'openThreadEventSocket'> {
  return {
    async openThreadEventSocket({ path }, ctx) {
      const visible = await protocolFor(ctx).visible(path.thread_id);
      if (!visible.ok) return failed(visible.failure);
      const detail = 'GET /threads/{thread_id}/stream/events opens a WebSocket: send it with Upgrade: websocket.';
      return { status: 426, headers: { Upgrade: 'websocket' }, body: { detail } };
    },
    async sendProtocolCommand({ path, body }, ctx) {
      const reply = await protocolFor(ctx).command(path.thread_id, body);
      return reply.ok ? { status: 200, body: reply.value } : failed(reply.failure);
    },
    async streamThreadEvents({ path, headers, body }, ctx) {
      // a reconnecting SSE client names the last event it read: the stream resumes after it,
      // or after `since` when that is later
      const lastEventId = headers['last-event-id'] === undefined ? undefined : Number(headers['last-event-id']);
      const since = lastEventId === undefined ? body.since : Math.max(lastEventId, body.since ?? 0);
      const filter = { channels: new Set(body.channels), namespaces: body.namespaces, depth: body.depth, since };
      const events = await protocolFor(ctx).events(path.thread_id, filter, ctx.signal);
      return events.ok ? { status: 200, stream: toSse(events.value) } : failed(events.failure);
    },
  };
}
