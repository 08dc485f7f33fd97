// The fan-out phase's subscribers, held in a worker thread of their own: a thousand streams
// decoded on the event loop that also times `/ok` and a run's first event would put the load
// generator's own delays in those figures (in a user's world the subscribers are other
// browsers, not the client that measures). The worker opens them, counts what they receive,
// and closes them when told.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { sendableTarget, sseSubscriber, socketSubscriber, type Delivery, type FanoutTarget, type Subscriber } from './fanoutClients.ts';

/** Every how many subscribers one records its events' delivery (a sample, so the reading costs the shared cores little). */
export const DELIVERY_SAMPLE_EVERY = 10;

/** Delivery over the sampled subscribers: made (the event's server timestamp) → read by the subscriber, in ms. */
export interface DeliveryFigure {
  subscribers: number;
  events: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * How busy the subscribers' own thread was while they read (its event loop's utilisation,
   * 0–1): near 1 it could not keep up, and delivery measures the client, not the server.
   */
  clientBusy?: number;
}

interface Open {
  target: FanoutTarget;
  threads: string[];
  subscribers: number;
  /** The first subscriber of each thread keeps every event's JSON it reads (what the ceiling plays, fanoutTimeline.ts). */
  record?: boolean;
}

/** Subscribers opened in a worker thread: how many opened, then what they received once closed. */
export async function openSubscribers(open: Open): Promise<{
  opened: number;
  failed: number;
  close(): Promise<{ eventsReceived: number; failed: number; lost: number; delivery: DeliveryFigure | null; recorded: string[][] }>;
}> {
  // tsx's loader does not reach worker threads: the worker registers its own, then loads this file
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { ...open, target: sendableTarget(open.target) } });
  const next = () =>
    new Promise<Record<string, number> & { delivery?: DeliveryFigure | null; recorded?: string[][] }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const { opened, failed } = await next();
  return {
    opened,
    failed,
    async close() {
      const done = next();
      worker.postMessage('close');
      const figures = await done;
      await worker.terminate();
      return {
        eventsReceived: figures.eventsReceived,
        failed: figures.failed,
        lost: figures.lost,
        delivery: figures.delivery ?? null,
        recorded: figures.recorded ?? [],
      };
    },
  };
}

async function serve(open: Open): Promise<void> {
  const subscribers: Subscriber[] = [];
  /** The thread each subscriber reads (by its index in `subscribers`). */
  const threadOf: string[] = [];
  let failed = 0;
  const half = Math.floor(open.subscribers / 2);
  // events made before every subscriber is open are not counted (none run then: the runs start after)
  let since = Infinity;
  const deliveries: Delivery[] = [];
  const sampled = (n: number) => {
    if (n % DELIVERY_SAMPLE_EVERY !== 0) return undefined;
    const d: Delivery = { since: () => since, delays: [] };
    deliveries.push(d);
    return d;
  };
  // subscriber n reads thread n mod the threads: the first of each is n = the thread's index
  const recorded = open.threads.map(() => [] as string[]);
  const recording = (n: number) => (open.record && n < open.threads.length ? recorded[n] : undefined);
  // opened a few at a time, as pages open
  for (let i = 0; i < open.subscribers; i += 25) {
    const batch = Array.from({ length: Math.min(25, open.subscribers - i) }, (_, k) => i + k);
    const opened = await Promise.allSettled(
      batch.map((n) => (n < half ? sseSubscriber : socketSubscriber)(open.target, open.threads[n % open.threads.length], sampled(n), recording(n))),
    );
    opened.forEach((o, k) => {
      if (o.status === 'fulfilled') {
        subscribers.push(o.value);
        threadOf.push(open.threads[batch[k]! % open.threads.length]!);
      } else failed += 1;
    });
  }
  since = Date.now();
  const busySince = performance.eventLoopUtilization();
  parentPort!.postMessage({ opened: subscribers.length, failed });
  parentPort!.once('message', () => {
    const eventsReceived = subscribers.reduce((sum, s) => sum + s.received(), 0);
    // every subscriber of a thread was open before its runs began and reads the same channels
    // from the same point: each must have what the one that received most on its thread did
    const most = new Map<string, number>();
    subscribers.forEach((s, i) => most.set(threadOf[i]!, Math.max(most.get(threadOf[i]!) ?? 0, s.received())));
    const lost = subscribers.reduce((sum, s, i) => sum + most.get(threadOf[i]!)! - s.received(), 0);
    const closedEarly = subscribers.filter((s) => s.failed()).length;
    for (const s of subscribers) s.close();
    const delays = deliveries.flatMap((d) => d.delays).sort((a, b) => a - b);
    const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(delays.length * q))];
    const clientBusy = Math.round(performance.eventLoopUtilization(busySince).utilization * 100) / 100;
    const delivery: DeliveryFigure | null = delays.length
      ? { subscribers: deliveries.filter((d) => d.delays.length).length, events: delays.length, p50Ms: at(0.5), p99Ms: at(0.99), clientBusy }
      : null;
    parentPort!.postMessage({ eventsReceived, failed: failed + closedEarly, lost, delivery, recorded: open.record ? recorded : [] });
  });
}

if (!isMainThread && (workerData as Open | undefined)?.target) void serve(workerData as Open);
