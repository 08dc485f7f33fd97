// A run worker (node:worker_threads): loads the project's graphs once, then executes the
// runs the pool sends it with the same runners as in-process execution. Stream events are
// posted back as they are produced; the store is reached through the main thread (see
// remoteStore.ts); an `abort` message aborts the run's signal, as a cancel does in-process.
import { parentPort, workerData } from 'node:worker_threads';
import { StoreCheckpointer, type StoredHead } from '../checkpointer.ts';
import { graphExecutor } from '../graphRunners.ts';
import { loadGraphs } from '../graphs.ts';
import { PlainStateStore } from '../plainState.ts';
import { describeError } from '../records.ts';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.ts';
import { RemoteStore, remoteMemory, type Call } from './remoteStore.ts';
import { installProjectGlobals, projectApiUrl, setProjectApiUrl, type LogLevel } from '../../../shared/projectGlobals.ts';
import { yieldToRequestLoop } from './schedulingPriority.ts';
import { traceOf } from '../tracing/failedRunTrace.ts';
import { wireJson } from '../wireJson.ts';
import { useOwnEnvironmentCopy } from './workerEnvironment.ts';

yieldToRequestLoop();
useOwnEnvironmentCopy();

const port = parentPort!;
const setup = workerData as WorkerSetup;
const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
const running = new Map<string, AbortController>();
let nextCall = 0;

/**
 * A run's events and writes come in bursts, and each post wakes the main thread (on a busy
 * machine the kernel may then run it in the worker's place): messages that nothing can change
 * any more (an event's text, a checkpoint write, a run's end) wait for the end of the event
 * loop's turn and leave together, or with the next message once the first has waited
 * BATCH_MS, so a graph that keeps computing between awaits still streams. Anything else is
 * cloned now, as its sender may change it: it is posted at once, after those waiting, so the
 * main thread gets every message in the order it was sent.
 */
const BATCH_MS = 2;
let batch: FromWorker[] = [];
let batchSince = 0;

function flush(): void {
  if (batch.length === 0) return;
  const messages = batch;
  batch = [];
  try {
    port.postMessage(messages.length === 1 ? messages[0] : { type: 'batch', messages });
  } catch {
    for (const message of messages) postAlone(message);
  }
}

/** A run's end that cannot be cloned fails the run instead of the worker. */
function postAlone(message: FromWorker): void {
  try {
    port.postMessage(message);
  } catch (err) {
    if (message.type !== 'done') throw err;
    port.postMessage({ type: 'failed', runId: message.runId, error: describeError(err) } satisfies FromWorker);
  }
}

/** Sends a message nothing changes any more, with the others of this turn. */
function sendLater(message: FromWorker): void {
  batch.push(message);
  if (batch.length === 1) {
    batchSince = performance.now();
    setImmediate(flush);
  } else if (performance.now() - batchSince > BATCH_MS) flush();
}

/** Sends a message now (cloned now: its sender may change it), after those waiting. */
function send(message: FromWorker): void {
  flush();
  port.postMessage(message);
}

const call: Call = (target, method, args, order) =>
  new Promise((resolve, reject) => {
    const id = ++nextCall;
    pending.set(id, { resolve, reject });
    if (order === undefined) return send({ type: 'call', id, target, method, args });
    // the records are the checkpointer's own, made for this write: nothing changes them while they wait
    sendLater({ type: 'call', id, target, method, args, order });
  });

/**
 * Events go as their JSON text: one string to copy where the data would be cloned object by
 * object (a `values` event is the thread's every message), and unchanged messages' text is
 * made once (wireJson.ts). Data JSON cannot write (a cycle, a BigInt) is cloned; anything
 * that cannot be cloned either goes as the JSON it can make.
 */
function publish(runId: string, event: string, data: unknown): void {
  let text: string | undefined;
  try {
    text = wireJson(data);
  } catch {
    text = undefined;
  }
  if (text !== undefined) return sendLater({ type: 'event', runId, event, text });
  try {
    send({ type: 'event', runId, event, data });
  } catch {
    send({ type: 'event', runId, event, data: JSON.parse(JSON.stringify(data ?? null)) });
  }
}

// replies are listened for from the start: loading the project may call the main thread
port.on('message', (message: ToWorker) => {
  if (message.type !== 'reply') return;
  const waiting = pending.get(message.id);
  pending.delete(message.id);
  if (!waiting) return;
  if (message.error) waiting.reject(Object.assign(new Error(message.error.message), { name: message.error.error }));
  else waiting.resolve(message.value);
});

/** A getLogger() line of the project's code; fields that cannot be cloned go as their JSON. */
function log(level: LogLevel, message: string, fields: Record<string, unknown>): void {
  try {
    send({ type: 'log', level, message, fields });
  } catch {
    send({ type: 'log', level, message, fields: JSON.parse(JSON.stringify(fields)) });
  }
}

/** The server's URL, from the main thread (it may start listening after this worker started). */
async function serverUrl(): Promise<string | undefined> {
  const known = projectApiUrl();
  if (known) return known;
  const url = (await call('apiUrl', 'get', [])) as string | undefined;
  if (url) setProjectApiUrl(url);
  return url;
}

async function main(): Promise<void> {
  // before the project's modules load: they may call getLogger() or new Client() at the top
  installProjectGlobals({ log, apiUrl: serverUrl });
  await serverUrl();
  const store = new RemoteStore(call);
  // a held thread's checkpoint writes are posted without waiting for each answer; the main
  // thread makes them in order (orderedCalls.ts)
  const checkpointer = new StoreCheckpointer(
    store,
    (threadNs) => call('newestCheckpoint', 'newestCheckpoint', [threadNs]) as Promise<StoredHead | undefined>,
    undefined,
    (threadId) => store.ordered(threadId),
  );
  const plain = new PlainStateStore(store);
  const graphs = await loadGraphs(setup.graphs, setup.baseDir, checkpointer, { functions: setup.functions, fresh: setup.fresh });
  const execute = graphExecutor({ graphs, plain, checkpointer, memoryStore: remoteMemory(call) });

  port.on('message', (message: ToWorker) => {
    if (message.type === 'abort') {
      running.get(message.runId)?.abort();
    } else if (message.type === 'run') {
      const { run, known } = message;
      const controller = new AbortController();
      running.set(run.run_id, controller);
      // the state at the end of a run is usually its last `values` event: posted once (a
      // structured clone of the whole state costs the worker ~1 µs per message in it)
      let lastValues: unknown;
      const publishing = (event: string, data: unknown) => {
        if (event === 'values') lastValues = data;
        publish(run.run_id, event, data);
      };
      execute(run, controller.signal, publishing, undefined, known)
        .then(
          (output) =>
            output.values === lastValues && lastValues !== undefined
              ? sendLater({ type: 'done', runId: run.run_id, output: { ...output, values: {} }, valuesAsLastEvent: true })
              : sendLater({ type: 'done', runId: run.run_id, output }),
          (err: unknown) =>
            send({
              type: 'failed',
              runId: run.run_id,
              error: { ...describeError(err), stack: err instanceof Error ? err.stack : undefined },
              trace: traceOf(err),
            }),
        )
        .finally(() => running.delete(run.run_id));
    }
  });
  send({ type: 'ready' });
}

main().catch((err: unknown) => send({ type: 'loadFailed', error: describeError(err) }));
