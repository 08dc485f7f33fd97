// The clients of the `fanout` phase: a subscriber to a thread's protocol v2 events over SSE or
// over its WebSocket, counting what it receives. Used by the phase itself (fanout.ts) and by the
// worker thread that holds its subscribers (fanoutSubscribers.ts).
import http from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import WebSocket from 'ws';

export interface FanoutTarget {
  url: string;
  headers: Record<string, string>;
  assistant: string;
  /**
   * Resolves once the server's start-up work has settled (settledStart.ts), before the idle
   * figures: read right after a start, the idle `/ok` p99 (its 4 slowest of 400) caught the
   * start's deferred work, 3.5–20 ms for one tree from one start to the next.
   */
  settled?: () => Promise<unknown>;
}

export const CHANNELS = ['lifecycle', 'values', 'messages'];

/** What a worker thread of the bench's is given of a target: `settled`, a function, cannot be cloned across to it. */
export function sendableTarget({ url, headers, assistant }: FanoutTarget): FanoutTarget {
  return { url, headers, assistant };
}

export const json = (t: FanoutTarget, pathname: string, body: unknown, signal?: AbortSignal) =>
  fetch(t.url + pathname, { method: 'POST', headers: { ...t.headers, 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

/** An open subscriber: counts the events it receives until closed. */
export interface Subscriber {
  received(): number;
  failed(): boolean;
  close(): void;
}

/**
 * A sampled subscriber's record of delivery (issue 67): for each `values` or `messages` event,
 * the wall clock when it was read here minus the `params.timestamp` the server stamped on it
 * when it made the event (Date.now(), the same machine's clock, ms resolution). Lifecycle
 * events are left out (a run's `running` may carry the run's creation time). Events stamped
 * before `since()` (a replay of older ones) are not counted.
 */
export interface Delivery {
  since(): number;
  delays: number[];
}

/** The delay of one event's text (an SSE frame or a WebSocket message), or null when it is not one to count. */
export function deliveryOf(text: string, receivedAt: number, since: number): number | null {
  if (!text.includes('"type":"event"') || text.includes('"method":"lifecycle"')) return null;
  const params = text.indexOf('"params":');
  const at = text.indexOf('"timestamp":', params);
  if (params < 0 || at < 0) return null;
  const stamp = Number.parseInt(text.slice(at + 12, at + 30), 10);
  return Number.isFinite(stamp) && stamp >= since ? receivedAt - stamp : null;
}

// The subscribers count what they receive without decoding it (a frame ends with a blank
// line; an event message begins with its type): a thousand of them share one thread, and one
// that cannot keep up would add its own delay to every delivery it measures. Only a sampled
// subscriber (one with `delivery`) decodes its events, to read their timestamps.
const FRAME_END = Buffer.from('\n\n');
const EVENT_MESSAGE = Buffer.from('{"type":"event"');
/** A comment frame the server sends on a quiet stream: not an event (it would count as one frame more on some streams than others). */
const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/** An SSE frame's data (its `data:` lines joined), or '' for a comment. */
const frameData = (frame: string) =>
  frame
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
    .join('\n');

/** `record`: every event's JSON the subscriber reads is kept there, in order (fanoutTimeline.ts). */
export async function sseSubscriber(t: FanoutTarget, thread: string, delivery?: Delivery, record?: string[]): Promise<Subscriber> {
  let events = 0;
  let failed = false;
  let closing = false;
  const url = new URL(`${t.url}/threads/${thread}/stream/events`);
  const body = JSON.stringify({ channels: CHANNELS });
  const req = http.request(url, {
    method: 'POST',
    agent: false,
    headers: { ...t.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    req.once('response', resolve).once('error', reject);
    req.end(body);
  });
  if (res.statusCode !== 200) {
    res.destroy();
    throw new Error(`POST /threads/{id}/stream/events: HTTP ${res.statusCode}`);
  }
  // the last byte of the chunk before, for a blank line split between two chunks
  let last = 0;
  // a sampled subscriber keeps the unfinished frame to read each whole one's timestamp
  let frame = '';
  // a character split between two chunks is decoded whole (a recorded event's text is the server's)
  const text = new StringDecoder('utf8');
  res.on('data', (chunk: Buffer) => {
    if (last === 10 && chunk[0] === 10) events += 1;
    for (let at = chunk.indexOf(FRAME_END); at >= 0; at = chunk.indexOf(FRAME_END, at + 2)) events += 1;
    for (let at = chunk.indexOf(HEARTBEAT); at >= 0; at = chunk.indexOf(HEARTBEAT, at + HEARTBEAT.length)) events -= 1;
    last = chunk[chunk.length - 1] ?? last;
    if (delivery || record) {
      const now = Date.now();
      const frames = (frame + text.write(chunk)).split('\n\n');
      frame = frames.pop()!;
      for (const f of frames) {
        const delay = delivery ? deliveryOf(f, now, delivery.since()) : null;
        if (delay !== null) delivery!.delays.push(delay);
        const data = record ? frameData(f) : '';
        if (data.startsWith('{"type":"event"')) record!.push(data);
      }
    }
  });
  const ended = () => {
    if (!closing) failed = true;
  };
  res.once('end', ended).once('error', ended).once('close', ended);
  return {
    received: () => events,
    failed: () => failed,
    close: () => {
      closing = true;
      req.destroy();
    },
  };
}

export async function socketSubscriber(t: FanoutTarget, thread: string, delivery?: Delivery, record?: string[]): Promise<Subscriber> {
  const ws = new WebSocket(`${t.url.replace(/^http/, 'ws')}/threads/${thread}/stream/events`, { headers: t.headers });
  let events = 0;
  let failed = false;
  let closing = false;
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => {
      ws.send(JSON.stringify({ id: 1, method: 'subscription.subscribe', params: { channels: CHANNELS } }));
    });
    ws.on('message', (data: Buffer) => {
      if (data.subarray(0, EVENT_MESSAGE.length).equals(EVENT_MESSAGE)) {
        events += 1;
        record?.push(data.toString('utf8'));
        if (delivery) {
          const delay = deliveryOf(data.toString('utf8'), Date.now(), delivery.since());
          if (delay !== null) delivery.delays.push(delay);
        }
        return;
      }
      const message = JSON.parse(String(data)) as { type?: string; id?: number };
      if (message.id === 1 && message.type === 'success') resolve();
      else if (message.id === 1) reject(new Error(`subscription.subscribe: ${String(data).slice(0, 200)}`));
    });
  });
  ws.on('close', () => {
    if (!closing) failed = true;
  });
  return {
    received: () => events,
    failed: () => failed,
    close: () => {
      closing = true;
      ws.close();
    },
  };
}
