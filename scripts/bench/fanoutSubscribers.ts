// The fan-out phase's subscribers, held in a worker thread of their own: a thousand streams
// decoded on the event loop that also times `/ok` and a run's first event would put the load
// generator's own delays in those figures (in a user's world the subscribers are other
// browsers, not the client that measures). The worker opens them, counts what they receive,
// and closes them when told.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { sseSubscriber, socketSubscriber, type FanoutTarget, type Subscriber } from './fanoutClients.ts';

interface Open {
  target: FanoutTarget;
  threads: string[];
  subscribers: number;
}

/** Subscribers opened in a worker thread: how many opened, then what they received once closed. */
export async function openSubscribers(open: Open): Promise<{ opened: number; failed: number; close(): Promise<{ eventsReceived: number; failed: number }> }> {
  // tsx's loader does not reach worker threads: the worker registers its own, then loads this file
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: open });
  const next = () =>
    new Promise<Record<string, number>>((resolve, reject) => {
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
      return { eventsReceived: figures.eventsReceived, failed: figures.failed };
    },
  };
}

async function serve(open: Open): Promise<void> {
  const subscribers: Subscriber[] = [];
  let failed = 0;
  const half = Math.floor(open.subscribers / 2);
  // opened a few at a time, as pages open
  for (let i = 0; i < open.subscribers; i += 25) {
    const batch = Array.from({ length: Math.min(25, open.subscribers - i) }, (_, k) => i + k);
    const opened = await Promise.allSettled(
      batch.map((n) => (n < half ? sseSubscriber : socketSubscriber)(open.target, open.threads[n % open.threads.length])),
    );
    for (const o of opened) {
      if (o.status === 'fulfilled') subscribers.push(o.value);
      else failed += 1;
    }
  }
  parentPort!.postMessage({ opened: subscribers.length, failed });
  parentPort!.once('message', () => {
    const eventsReceived = subscribers.reduce((sum, s) => sum + s.received(), 0);
    const closedEarly = subscribers.filter((s) => s.failed()).length;
    for (const s of subscribers) s.close();
    parentPort!.postMessage({ eventsReceived, failed: failed + closedEarly });
  });
}

if (!isMainThread && (workerData as Open | undefined)?.target) void serve(workerData as Open);
