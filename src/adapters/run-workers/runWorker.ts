// A run worker (node:worker_threads): loads the project's graphs once, then executes the
// runs the pool sends it with the same runners as in-process execution. Stream events are
// posted back as they are produced; the store is reached through the main thread (see
// remoteStore.ts); an `abort` message aborts the run's signal, as a cancel does in-process.
//
// A run alone on its thread may be told which run of the thread comes next (`next`): once it
// ends well (at once, if it has), that run starts here, ahead of its claim, from the state the run before
// left (StoreCheckpointer.endedHead), while the main thread records the end and claims it.
// Nothing of a run started ahead leaves the worker (its events, store calls, log lines and
// end are held back, its calls unanswered) until the main thread says `go` (claimed, and its
// first reads are what the run assumed) or `drop` (then it is stopped and all of it discarded).
// First: the storage that tells runs apart is set before anything loads LangChain (runStorage.ts).
import { runStorage } from './runStorage.ts';
import v8 from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { TextPutCollections } from '../embedded/textPut.ts';
import { StoreCheckpointer, type StoredHead } from '../../domain/agent/checkpoints/checkpointer.ts';
import { graphExecutor, loadRunModules } from '../../domain/agent/graphs/graphRunners.ts';
import { warmRunPath, warmUpGraphRegistry } from './warmRunPath.ts';
import { fullCollection, youngCollection } from '../../runtime/idle/idleCollector.ts';
import { WarmUpCollections } from './warmUpCollections.ts';
import { IdleScavenge, youngBytesRoom, youngBytesUsed } from './idleScavenge.ts';
import { loadGraphs } from '../../domain/agent/graphs/graphs.ts';
import { PlainStateStore } from '../../domain/agent/checkpoints/plainState.ts';
import { CollectionPlainCheckpoints } from '../embedded/collectionPlainCheckpoints.ts';
import { CollectionCheckpoints } from '../embedded/collectionCheckpoints.ts';
import { describeError } from '../../domain/agent/records.ts';
import type { FromWorker, NextOffer, ToWorker, WorkerSetup } from './protocol.ts';
import type { RunRecord } from '../../domain/agent/records.ts';
import type { KnownReads, RunExecutorWithReads } from '../../domain/agent/graphs/runContext.ts';
import type { MemoryAccess } from '../../domain/memory/langgraphStore.ts';
import { readsKey } from './firstReads.ts';
import { RemoteStore, remoteMemory, type Call } from './remoteStore.ts';
import { installProjectGlobals, projectApiUrl, setProjectApiUrl, type LogLevel } from '../../shared/projectGlobals.ts';
import { installAgentAuth, type AgentAuthAnswer } from '../../shared/agentAuthGlobal.ts';
import { yieldToRequestLoop } from './schedulingPriority.ts';
import { traceOf } from '../../domain/agent/tracing/failedRunTrace.ts';
import { wireJson } from '../../domain/agent/messages/wireJson.ts';
import { JsonText } from '../../shared/jsonText.ts';
import { poolRandomValues, useOwnEnvironmentCopy } from './workerEnvironment.ts';
import { langGraphReleaseNear } from '../../shared/langGraphRelease.ts';
import { useCompiledProjectModules } from '../../shared/projectModule.ts';
import { useRunSpanSettings } from '../../domain/ports/spanExport.ts';
import { runSpanSettingsFromEnv } from '../tracing/runSpanSettings.ts';

yieldToRequestLoop();
useOwnEnvironmentCopy();
poolRandomValues();
// this worker's runs export their spans as the main thread's do
useRunSpanSettings(() => runSpanSettingsFromEnv(process.env));

const port = parentPort!;
const setup = workerData as WorkerSetup;
const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
const running = new Map<string, AbortController>();
let nextCall = 0;

/** The messages of runs started ahead that wait for `go`, by run id. */
const held = new Map<string, FromWorker[]>();
/** Runs started ahead that were dropped and have not stopped yet: what they post is discarded, what they call fails. */
const dropped = new Set<string>();
/**
 * The largest the heap was at a run's end since the pool last asked (`heap`): what the runs
 * grew it to, whether or not V8 has shrunk it since (a worker's memory reducer comes late or
 * never, and even after it the worker itself is ~100 MB the pool may give back).
 */
let grownTo = 0;

/** The run a message is of (none: the worker's own, as while loading the project). */
function runOf(message: FromWorker): string | undefined {
  return 'runId' in message ? message.runId : runStorage.currentRun();
}

/** Whether a message of a run started ahead was kept back (or discarded): it is not to be posted now. */
function heldBack(message: FromWorker, copy: boolean): boolean {
  const runId = runOf(message);
  if (runId === undefined) return false;
  if (dropped.has(runId)) {
    if (message.type === 'call') failCall(message.id);
    return true;
  }
  const waiting = held.get(runId);
  if (!waiting) return false;
  // what is posted at once is cloned at once (its sender may change it): so is what waits
  waiting.push(copy ? structuredClone(message) : message);
  return true;
}

/** A run that ended well here, and the plain-state head it was told of (the run after it reads the same). */
interface Ended {
  run: RunRecord;
  plainHead: KnownReads['plainHead'];
}

function failCall(id: number): void {
  const waiting = pending.get(id);
  pending.delete(id);
  waiting?.reject(Object.assign(new Error('The run was started ahead of its claim and dropped.'), { name: 'AbortError' }));
}

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
  if (heldBack(message, false)) return;
  batch.push(message);
  if (batch.length === 1) {
    batchSince = performance.now();
    setImmediate(flush);
  } else if (performance.now() - batchSince > BATCH_MS) flush();
}

/** Sends a message now (cloned now: its sender may change it), after those waiting. */
function send(message: FromWorker): void {
  if (heldBack(message, true)) return;
  flush();
  port.postMessage(message);
}

/** Calls the main thread; `warmUp`: the calls of the warm-up's runs, answered from the warm-up's store (protocol.ts). */
const callsMarked =
  (warmUp: boolean): Call =>
  (target, method, args, order, unanswered) => {
    // the run it is of counts as progressing (the run watchdog)
    const run = runStorage.currentRun();
    if (unanswered && order !== undefined) {
      // handed over: the main thread makes it in order and acts on its failure (protocol.ts)
      sendLater({ type: 'call', id: ++nextCall, target, method, args, order, run, warmUp, unanswered: true });
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const id = ++nextCall;
      pending.set(id, { resolve, reject });
      if (order === undefined) return send({ type: 'call', id, target, method, args, run, warmUp });
      // the records are the checkpointer's own, made for this write: nothing changes them while they wait
      sendLater({ type: 'call', id, target, method, args, order, run, warmUp });
    });
  };
const call = callsMarked(false);

/**
 * Events go as their JSON text: one string to copy where the data would be cloned object by
 * object (a `values` event is the thread's every message), and unchanged messages' text is
 * made once (wireJson.ts). Data JSON cannot write (a cycle, a BigInt) is cloned; anything
 * that cannot be cloned either goes as the JSON it can make.
 */
function publish(runId: string, event: string, data: unknown): void {
  let text: string | undefined;
  try {
    text = data instanceof JsonText ? data.text : wireJson(data);
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
  if (message.type === 'reply') answered(message);
  // answers posted together (replyOutbox.ts), settled in the order they were given
  else if (message.type === 'replies') for (const reply of message.replies) answered(reply);
});

function answered(reply: Extract<ToWorker, { type: 'reply' }>): void {
  const waiting = pending.get(reply.id);
  pending.delete(reply.id);
  if (!waiting) return;
  if (reply.error) waiting.reject(Object.assign(new Error(reply.error.message), { name: reply.error.error }));
  else waiting.resolve(reply.value);
}

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
  // a graph's authenticate() (sdk/auth.ts) is answered by the main thread, which holds the auth service
  installAgentAuth((request) => call('agentAuth', 'authenticate', [request]) as Promise<AgentAuthAnswer>);
  await serverUrl();
  const stores = remoteStores(call, setup.textPuts);
  if (setup.modules && !setup.fresh) useCompiledProjectModules(setup.modules);
  const graphs = await loadGraphs(setup.graphs, setup.baseDir, stores.checkpointer, { functions: setup.functions, fresh: setup.fresh });
  // before the worker is ready, as the graphs are: a run's time limit counts none of it
  await loadRunModules();
  // the run path run here on a graph of its own, so the first run of the project's graphs finds it compiled
  await warmRunPath().catch((err: unknown) => log('debug', 'the worker’s warm-up run failed', { error: String(err) }));
  // the run watchdog's heartbeat: every heartbeatMs, the runs that progressed since the last
  // (their callbacks came, or a model or tool call of theirs is in flight); a worker whose loop
  // is blocked sends none
  const progress = new Map<string, (since: number) => boolean>();
  if (setup.heartbeatMs) {
    const beatMs = setup.heartbeatMs;
    let since = performance.now();
    setInterval(() => {
      // a beat that comes late means this thread computed without a pause or was starved of
      // CPU: its runs were busy, not waiting on nothing (a loop that never yields sends none)
      const late = performance.now() - since > 2 * beatMs;
      const runIds = [...progress]
        .filter(([runId, progressed]) => (late || progressed(since)) && !held.has(runId) && !dropped.has(runId))
        .map(([runId]) => runId);
      since = performance.now();
      if (runIds.length > 0) send({ type: 'alive', runIds });
    }, beatMs).unref();
  }
  const watch = (runId: string, progressed: (since: number) => boolean) => {
    progress.set(runId, progressed);
    return () => progress.delete(runId);
  };
  const langgraphVersion = langGraphReleaseNear(setup.baseDir);
  const execute = graphExecutor({ graphs, ...stores, valuesAsText: true, watch, langgraphVersion });
  // the main thread's warm-up runs take the same run path as the project's runs (an executor made
  // alike, over the main thread's store), the first run otherwise paid for its first use; with
  // their calls marked, so that the pool answers them from the warm-up's store
  let warmUpExecute: Promise<RunExecutorWithReads> | undefined;
  const warmUpExecutor = () =>
    (warmUpExecute ??= (async () => {
      const warmUpStores = remoteStores(callsMarked(true));
      const warmUpGraphs = await warmUpGraphRegistry(warmUpStores.checkpointer);
      return graphExecutor({ graphs: warmUpGraphs, ...warmUpStores, valuesAsText: true, watch, langgraphVersion });
    })());

  // a full collection before the main thread's warm-up runs, a young one once they are over (warmUpCollections.ts)
  const collections = new WarmUpCollections({ full: () => fullCollection()?.(), young: () => youngCollection()?.() }, () => running.size === 0);
  // and the young generation whenever the worker goes idle after one of the project's runs, so no
  // run meets a scavenge before its first token (idleScavenge.ts); the warm-up's runs keep the
  // collections above alone, so what the first run finds is theirs
  const scavenge = youngCollection();
  const idleScavenge = scavenge && new IdleScavenge({ used: youngBytesUsed, room: youngBytesRoom, collect: scavenge }, () => running.size === 0);

  /** The next run of a thread, offered to start once the run it follows (the key) ends well, with its flag set once it is withdrawn. */
  const offers = new Map<string, { run: RunRecord; withdrawn: Int32Array }>();
  /** Runs that ended well lately, with the plain-state head they were told of: the runs after them may still be offered. */
  const endedWell = new Map<string, Ended>();
  const ENDED_WELL_KEPT = 16;

  /** Starts the run offered ahead of its claim when `ended` left what it reads first known; says whether it did (every offer is answered). */
  const startAhead = (ended: Ended | undefined, offer: { run: RunRecord; withdrawn: Int32Array }): void => {
    const next = offer.run;
    // cancelled or deleted since it was offered: never started
    const reads = ended && Atomics.load(offer.withdrawn, 0) === 0 ? readsAfter(ended, next) : undefined;
    sendLater({ type: 'ahead', runId: next.run_id, reads: reads ? readsKey(reads) : null });
    // posted before the run starts: it may compute without a pause, and the main thread needs
    // the end of the run before (and this answer) to claim it
    flush();
    if (reads) start(next, reads, true);
  };

  /** What the thread's next run reads first, as the run before left it (a LangGraph run leaves the plain state as it was); undefined when that is not known. */
  const readsAfter = ({ run, plainHead }: Ended, next: RunRecord): KnownReads | undefined => {
    if (next.thread_id !== run.thread_id || plainHead === undefined) return undefined;
    const newest = stores.checkpointer.endedHead(run.thread_id);
    return newest ? { plainHead, newestCheckpoint: newest } : undefined;
  };

  const start = (run: RunRecord, known: KnownReads | undefined, ahead: boolean, executor = execute, ended = () => idleScavenge?.runEnded()): void => {
    const controller = new AbortController();
    idleScavenge?.runStarted(running.size === 0);
    running.set(run.run_id, controller);
    if (ahead) held.set(run.run_id, []);
    // the state at the end of a run is usually its last `values` event: posted once (a
    // structured clone of the whole state costs the worker ~1 µs per message in it)
    let lastValues: unknown;
    const publishing = (event: string, data: unknown) => {
      if (event === 'values') lastValues = data;
      publish(run.run_id, event, data);
    };
    // the run whose code is executing: a store call or a log line is that run's
    runStorage
      .runIn(run.run_id, () => executor(run, controller.signal, publishing, undefined, known))
      .then(
        (output) => {
          if (dropped.has(run.run_id)) return;
          sendLater(
            output.values === lastValues && lastValues !== undefined
              ? { type: 'done', runId: run.run_id, output: { ...output, values: {} }, valuesAsLastEvent: true }
              : // values written as text (RunStream.wireValues) go as that text, not as data cloned object by object
                (output.values as unknown) instanceof JsonText
                ? { type: 'done', runId: run.run_id, output: { ...output, values: {} }, valuesText: (output.values as unknown as JsonText).text }
                : { type: 'done', runId: run.run_id, output },
          );
          const next = offers.get(run.run_id);
          const ended: Ended = { run, plainHead: known?.plainHead };
          // a run still held back does not start another (what it read is not confirmed yet): at its `go`
          if (next && !held.has(run.run_id)) {
            offers.delete(run.run_id);
            startAhead(ended, next);
          } else {
            endedWell.set(run.run_id, ended);
            if (endedWell.size > ENDED_WELL_KEPT) endedWell.delete(endedWell.keys().next().value!);
          }
        },
        (err: unknown) => {
          const next = offers.get(run.run_id);
          offers.delete(run.run_id);
          if (next) startAhead(undefined, next);
          send({
            type: 'failed',
            runId: run.run_id,
            error: { ...describeError(err), stack: err instanceof Error ? err.stack : undefined },
            trace: traceOf(err),
          });
        },
      )
      .finally(() => {
        running.delete(run.run_id);
        grownTo = Math.max(grownTo, heapBytes());
        ended();
        if (!dropped.delete(run.run_id)) return;
        held.delete(run.run_id);
        const next = offers.get(run.run_id);
        offers.delete(run.run_id);
        if (next) startAhead(undefined, next);
        send({ type: 'dropped', runId: run.run_id });
      });
  };

  /** The thread's next run, offered to start after `after`: at its end while it runs (or is held back), now if it ended well, else never. */
  const takeOffer = ({ after, run, withdrawn }: NextOffer): void => {
    const ended = endedWell.get(after);
    endedWell.delete(after);
    if (running.has(after) || held.has(after)) offers.set(after, { run, withdrawn });
    else startAhead(ended, { run, withdrawn });
  };

  port.on('message', (message: ToWorker) => {
    if (message.type === 'abort') {
      running.get(message.runId)?.abort();
    } else if (message.type === 'run') {
      if (message.warmUp)
        void warmUpExecutor().then(
          (warmUp) => {
            collections.beforeRun();
            start(message.run, message.known, false, warmUp, () => {
              collections.runEnded();
              idleScavenge?.rest();
            });
          },
          (err: unknown) => send({ type: 'failed', runId: message.run.run_id, error: describeError(err) }),
        );
      else start(message.run, ownReads(message.known, stores.checkpointer, message.run.thread_id), false);
    } else if (message.type === 'next') {
      takeOffer(message);
    } else if (message.type === 'go') {
      const messages = held.get(message.runId) ?? [];
      held.delete(message.runId);
      for (const one of messages) sendLater(one);
      // the run after it, offered with the `go`: its answer (and its start, when this one has
      // ended) leave in one post with these messages
      if (message.next) takeOffer(message.next);
      // it ended well while held back, and the run after it was offered meanwhile: that one may start now
      const next = running.has(message.runId) ? undefined : offers.get(message.runId);
      if (next) {
        const ended = endedWell.get(message.runId);
        offers.delete(message.runId);
        endedWell.delete(message.runId);
        startAhead(ended, next);
      }
      flush();
    } else if (message.type === 'heap') {
      send({ type: 'heap', bytes: Math.max(grownTo, heapBytes()) });
      grownTo = 0;
    } else if (message.type === 'drop') {
      const { runId } = message;
      const messages = held.get(runId) ?? [];
      held.delete(runId);
      for (const one of messages) if (one.type === 'call') failCall(one.id);
      const controller = running.get(runId);
      // stopped already (or never started): nothing of it was posted
      if (!controller) return send({ type: 'dropped', runId });
      dropped.add(runId);
      controller.abort();
    }
  });
  send({ type: 'ready', heapBytes: heapBytes() });
}

/** The stores a run reads and writes through the main thread (`call`): its checkpoints, plain state and memory. */
function remoteStores(call: Call, textPuts?: TextPutCollections): { checkpointer: StoreCheckpointer; plain: PlainStateStore; memoryStore: MemoryAccess } {
  // a warm-up's store takes its puts with their values: it is given no `textPuts`
  const store = new RemoteStore(call, undefined, false, textPuts);
  // a held thread's checkpoint writes are posted without waiting for each answer; the main
  // thread makes them in order (orderedCalls.ts)
  const checkpointer = new StoreCheckpointer(
    new CollectionCheckpoints(store),
    (threadNs) => call('newestCheckpoint', 'newestCheckpoint', [threadNs]) as Promise<StoredHead | undefined>,
    undefined,
    (threadId, awaited) => new CollectionCheckpoints(store.ordered(threadId, awaited)),
  );
  return { checkpointer, plain: new PlainStateStore(new CollectionPlainCheckpoints(store)), memoryStore: remoteMemory(call) };
}

/** This isolate's heap as committed (what it holds of the process's memory, garbage included). */
function heapBytes(): number {
  return v8.getHeapStatistics().total_heap_size;
}

main().catch((err: unknown) => send({ type: 'loadFailed', error: describeError(err) }));

/**
 * The first reads a run is sent, with the newest checkpoint taken from this worker's memory where
 * the main thread found the end state kept here of the thread's last run to be it still
 * (KnownReads.ownCheckpoint); none kept (gone from memory since): the run reads it itself.
 */
function ownReads(known: KnownReads | undefined, checkpointer: Pick<StoreCheckpointer, 'endedHead'>, threadId: string): KnownReads | undefined {
  if (!known?.ownCheckpoint) return known;
  const head = checkpointer.endedHead(threadId);
  return head ? { plainHead: known.plainHead, newestCheckpoint: head } : { plainHead: known.plainHead };
}
