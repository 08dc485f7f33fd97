// The clients of the `fanout` phase: a subscriber to a thread's protocol v2 events over SSE or
// over its WebSocket, counting what it receives. Used by the phase itself (fanout.ts) and by the
// worker thread that holds its subscribers (fanoutSubscribers.ts).
import WebSocket from 'ws';

export interface FanoutTarget {
  url: string;
  headers: Record<string, string>;
  assistant: string;
}

export const CHANNELS = ['lifecycle', 'values', 'messages'];

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

export async function sseSubscriber(t: FanoutTarget, thread: string, delivery?: Delivery): Promise<Subscriber> {
  const abort = new AbortController();
  let events = 0;
  let failed = false;
  const res = await json(t, `/threads/${thread}/stream/events`, { channels: CHANNELS }, abort.signal);
  if (res.status !== 200) throw new Error(`POST /threads/{id}/stream/events: HTTP ${res.status}`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    // a frame ends with a blank line; the last character of a chunk is kept for one split there
    let tail = '';
    // a sampled subscriber keeps the unfinished frame to read each whole one's timestamp
    let frame = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        events += (tail + value).split('\n\n').length - 1;
        tail = value.slice(-1);
        if (delivery) {
          const now = Date.now();
          const frames = (frame + value).split('\n\n');
          frame = frames.pop()!;
          for (const f of frames) {
            const delay = deliveryOf(f, now, delivery.since());
            if (delay !== null) delivery.delays.push(delay);
          }
        }
      }
      if (!abort.signal.aborted) failed = true;
    } catch {
      if (!abort.signal.aborted) failed = true;
    }
  })();
  return { received: () => events, failed: () => failed, close: () => abort.abort() };
}

export async function socketSubscriber(t: FanoutTarget, thread: string, delivery?: Delivery): Promise<Subscriber> {
  const ws = new WebSocket(`${t.url.replace(/^http/, 'ws')}/threads/${thread}/stream/events`, { headers: t.headers });
  let events = 0;
  let failed = false;
  let closing = false;
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => {
      ws.send(JSON.stringify({ id: 1, method: 'subscription.subscribe', params: { channels: CHANNELS } }));
    });
    ws.on('message', (data) => {
      const text = String(data);
      if (delivery) {
        const delay = deliveryOf(text, Date.now(), delivery.since());
        if (delay !== null) delivery.delays.push(delay);
      }
      const message = JSON.parse(text) as { type?: string; id?: number };
      if (message.type === 'event') events += 1;
      else if (message.id === 1 && message.type === 'success') resolve();
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
