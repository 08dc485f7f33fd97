// The fan-out phase's run drivers, held in a worker thread of their own (issue 87): each of the
// threads runs `run.start` runs one after another (fanout.ts `protocolRun`: the command, then
// the run's join read to its end) while told to. On the event loop that also times `/ok`, the
// drivers' own work (a fetch and its body for every command and every join, 20 of them at a
// time) delayed the timing requests' responses in the client: the bench measured its own loop
// as much as the server (the bare broadcaster's turn has no drivers in the client at all). In
// a user's world the clients that start runs are other processes, as the subscribers are.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { sendableTarget, type FanoutTarget } from './fanoutClients.ts';

interface Setup {
  target: FanoutTarget;
  threads: string[];
}

/** Drivers in a worker thread: `start()` sets every thread running runs back to back; `stop()` waits for the runs under way to end and says how many ended well since the start. */
export async function runDrivers(setup: Setup): Promise<{ start(): Promise<void>; count(): Promise<number>; stop(): Promise<number>; close(): Promise<void> }> {
  // tsx's loader does not reach worker threads: the worker registers its own, then loads this file
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  // under a key of its own: fanoutSubscribers.ts, imported here through fanout.ts, serves any worker whose data has a `target`
  const worker = new Worker(boot, { eval: true, workerData: { drivers: { ...setup, target: sendableTarget(setup.target) } } });
  const next = () =>
    new Promise<{ runs?: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  await next();
  const ask = async (what: string) => {
    const answer = next();
    worker.postMessage(what);
    return answer;
  };
  return {
    start: async () => void (await ask('start')),
    count: async () => (await ask('count')).runs ?? 0,
    stop: async () => (await ask('stop')).runs ?? 0,
    close: () => worker.terminate().then(() => undefined),
  };
}

async function serve(setup: Setup): Promise<void> {
  const { protocolRun } = await import('./fanout.ts');
  let running = false;
  let runs = 0;
  let drivers: Promise<void>[] = [];
  parentPort!.on('message', (what: string) => {
    if (what === 'start') {
      running = true;
      runs = 0;
      drivers = setup.threads.map(async (thread) => {
        while (running) if (await protocolRun(setup.target, thread)) runs += 1;
      });
      parentPort!.postMessage({});
    } else if (what === 'count') parentPort!.postMessage({ runs });
    else if (what === 'stop') {
      running = false;
      void Promise.all(drivers).then(() => parentPort!.postMessage({ runs }));
    }
  });
  parentPort!.postMessage({});
}

const mine = !isMainThread && (workerData as { drivers?: Setup } | undefined)?.drivers;
if (mine) void serve(mine);
