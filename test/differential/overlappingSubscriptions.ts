// Two subscriptions of one protocol WebSocket whose filters overlap, the second made after the
// run it reads has ended: what the SDK's ThreadStream gives each, and how many times each event
// crossed the wire. Upstream's session (langgraph-api protocol/session/index.mjs) replays its
// buffer to a new subscription (`handleSubscribeForResponse`) and sends each live event once per
// matching subscription (`pushEvent`); the SDK (client/stream/index.js `#handleIncoming`) hands
// an incoming event to every subscription whose filter it matches and that has not had its
// `event_id`, so a later subscription sees the earlier events only if the server sends them again.
import { Client } from '@langchain/langgraph-sdk';
import WebSocket from 'ws';
import { bearer, USER, type Side } from './harness.ts';
import { until } from './threadStream.ts';

type StreamEvent = { method: string; event_id?: string; seq?: number; params: { namespace: string[]; data: any } };

const rootCompleted = (e: StreamEvent) => e.method === 'lifecycle' && e.params.namespace.length === 0 && e.params.data?.event === 'completed';
/** An event as a person reads it: its method, and for a lifecycle event its state. */
const view = (e: StreamEvent) => `${e.method}${e.method === 'lifecycle' ? ` ${e.params.data?.event}` : ''}`;

/** Reads a subscription into `into` across the SDK's pauses (it pauses a subscription after a root terminal event). */
function readAll(subscription: AsyncIterable<unknown> & { isPaused: boolean; waitForResume(): Promise<void> }, into: StreamEvent[]) {
  return (async () => {
    while (true) {
      for await (const event of subscription) into.push(event as StreamEvent);
      if (!subscription.isPaused) return;
      await subscription.waitForResume();
    }
  })();
}

export async function overlappingSubscriptions(side: Side) {
  // every event frame the socket received, by event id
  const copies = new Map<string, number>();
  const webSocketFactory = (url: string) => {
    const ws = new WebSocket(url, { headers: bearer(USER) });
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type?: string; event_id?: string };
      if (message.type === 'event' && message.event_id) copies.set(message.event_id, (copies.get(message.event_id) ?? 0) + 1);
    });
    return ws as never;
  };
  const client = new Client({ apiUrl: side.url, callerOptions: { maxRetries: 0 } });
  const thread = client.threads.stream({ assistantId: 'chat', transport: 'websocket', webSocketFactory });
  const first: StreamEvent[] = [];
  const second: StreamEvent[] = [];
  const readers: Promise<void>[] = [];
  let secondSawTheRun = true;
  try {
    // (upstream answers a subscribe on a thread with no run once a run starts)
    const subscribing = thread.subscribe(['lifecycle', 'values']);
    await thread.run.start({ input: { messages: [{ role: 'user', content: 'overlap' }] } });
    readers.push(readAll(await subscribing, first));
    await until(() => first.some(rootCompleted), 'the first subscription to see the run complete');
    // the run is over: all the second is given of it is what the server sends it again
    const two = await thread.subscribe(['lifecycle', 'values', 'updates']);
    readers.push(readAll(two, second));
    await until(() => second.some(rootCompleted), 'the second subscription to see the run complete', 15_000).catch(() => (secondSawTheRun = false));
  } finally {
    await thread.close();
    await Promise.race([Promise.allSettled(readers), new Promise((resolve) => setTimeout(resolve, 2_000))]);
  }
  const bySeq = (events: StreamEvent[]) => [...events].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0)).map(view);
  // how many frames carried each event the second subscription matches (lifecycle and values:
  // both subscriptions, and the SDK's own lifecycle watcher for lifecycle events)
  const framesOf = (method: string) => [...new Set(second.filter((e) => e.method === method).map((e) => copies.get(e.event_id ?? '') ?? 0))].sort();
  return {
    first: bySeq(first),
    second: bySeq(second),
    secondSawTheRun,
    framesPerEvent: { values: framesOf('values'), updates: framesOf('updates') },
  };
}
