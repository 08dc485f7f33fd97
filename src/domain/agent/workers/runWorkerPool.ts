// Graphs execute in a pool of worker threads, so a graph that computes cannot stall the
// request loop. The pool is a RunExecutor: the run lifecycle (claim → execute → finish),
// the queue, per-thread order and cancellation are unchanged; only where the graph runs
// differs. Workers start on demand up to `size` (one is started with the server) and each
// loads the project's graphs once. A run goes to an idle worker, or to the least busy one
// when all are busy (async graphs interleave as they would in-process).
//
// A small pool of our own rather than piscina: a run is not a request/response task but a
// stream of events out, store calls answered in between, and an abort in — and a worker
// that crashes or is terminated must fail exactly its own runs and be replaced.
//
// A worker that dies (an exception outside any run, process.exit, out of memory) ends its
// runs in `error` saying so; one whose run exceeded its time limit (the lifecycle aborts it
// with RunTimeout) is terminated at once; one that does not end a cancelled run within
// `abortGraceMs` is terminated too. Either way it is replaced and queued runs continue.
import { Worker } from 'node:worker_threads';
import { projectApiUrl } from '../projectGlobals.ts';
import type { Logger } from '../../../runtime/logger.ts';
import type { Store } from '../../../runtime/store/types.ts';
import type { MemoryAccess } from '../../memory/langgraphStore.ts';
import { newestCheckpoint } from '../checkpointer.ts';
import { describeError, type RunError, type RunRecord } from '../records.ts';
import type { RunExecutor, RunOutput } from '../runContext.ts';
import { RunTimeout } from '../runLifecycle.ts';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.ts';
import { REMOTE_COLLECTION_METHODS, REMOTE_MEMORY_METHODS } from './remoteStore.ts';

export interface RunWorkerPoolOptions {
  /** How many workers at most (AGENTPLANE_RUN_WORKERS). */
  size: number;
  setup: WorkerSetup;
  store: Store;
  memory?: MemoryAccess;
  log: Logger;
  /** How long a cancelled run's worker has to end it before it is terminated (default 5 s). */
  abortGraceMs?: number;
  /** Each worker's heap limit in MB (AGENTPLANE_RUN_WORKER_MEMORY_MB); Node's default when absent. */
  memoryMb?: number | null;
}

interface Task {
  run: RunRecord;
  publish(event: string, data: unknown): void;
  resolve(output: RunOutput): void;
  reject(err: Error): void;
  /** Store calls still being answered: the run's result waits for them. */
  calls: Set<Promise<void>>;
  cleanup(): void;
}

interface Slot {
  id: number;
  worker: Worker;
  ready: Promise<void>;
  tasks: Map<string, Task>;
  /** Set before a deliberate termination: why its runs end. */
  killed?: { runId: string; error: RunError };
  /** The uncaught error that is about to end the worker. */
  crash?: Error;
  /** Finish the runs in hand, then stop (dev reload). */
  retiring: boolean;
}

const SOURCES = import.meta.url.endsWith('.ts');
const ENTRY = new URL(SOURCES ? './workerEntry.mjs' : './runWorker.js', import.meta.url);

const errorOf = (error: RunError & { stack?: string }) => Object.assign(new Error(error.message), { name: error.error, ...(error.stack ? { stack: error.stack } : {}) });

export class RunWorkerPool {
  private readonly slots = new Set<Slot>();
  private setup: WorkerSetup;
  private stopping = false;
  private nextId = 0;

  constructor(private readonly options: RunWorkerPoolOptions) {
    this.setup = options.setup;
  }

  /** Executes runs in the pool's workers (the lifecycle's `execute`). */
  readonly execute: RunExecutor = (run, signal, publish, started) => this.executeRun(run, signal, publish, started);

  /** Terminates every worker (after the lifecycle stopped: runs in flight have ended or were given up). */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }

  /** The project changed (dev reload): new runs go to fresh workers; busy ones finish first. */
  reload(setup: WorkerSetup): void {
    this.setup = { ...setup, fresh: true };
    for (const slot of this.slots) {
      slot.retiring = true;
      if (slot.tasks.size === 0) void slot.worker.terminate();
    }
    if (!this.stopping) this.spawn();
  }

  /** Workers alive now (metrics, tests). */
  workers(): number {
    return this.slots.size;
  }

  private async executeRun(run: RunRecord, signal: AbortSignal, publish: (event: string, data: unknown) => void, started?: () => void): Promise<RunOutput> {
    signal.throwIfAborted();
    const slot = this.pick();
    await slot.ready;
    signal.throwIfAborted();
    if (!this.slots.has(slot)) throw errorOf(slot.killed?.error ?? { error: 'WorkerCrashed', message: 'The run worker stopped before the run started.' });
    return new Promise<RunOutput>((resolve, reject) => {
      let grace: NodeJS.Timeout | undefined;
      const onAbort = () => {
        if (signal.reason instanceof RunTimeout) {
          // a graph that never yields would never see its signal: end the worker now
          this.kill(slot, run.run_id, { error: 'TimeoutError', message: signal.reason.message });
          return;
        }
        this.post(slot, { type: 'abort', runId: run.run_id });
        const graceMs = this.options.abortGraceMs ?? 5_000;
        grace = setTimeout(() => this.kill(slot, run.run_id, { error: 'WorkerStopped', message: `The run did not stop within ${graceMs / 1000} s of its cancellation; its worker was terminated.` }), graceMs);
        grace.unref();
      };
      const task: Task = {
        run,
        publish,
        resolve,
        reject,
        calls: new Set(),
        cleanup: () => {
          clearTimeout(grace);
          signal.removeEventListener('abort', onAbort);
        },
      };
      slot.tasks.set(run.run_id, task);
      signal.addEventListener('abort', onAbort, { once: true });
      this.post(slot, { type: 'run', run });
      started?.();
    });
  }

  /** An idle worker, else a new one while the pool is below its size, else the least busy. */
  private pick(): Slot {
    const open = [...this.slots].filter((s) => !s.retiring && !s.killed);
    const idle = open.find((s) => s.tasks.size === 0);
    if (idle) return idle;
    if (this.slots.size < this.options.size || open.length === 0) return this.spawn();
    return open.reduce((a, b) => (b.tasks.size < a.tasks.size ? b : a));
  }

  private spawn(): Slot {
    // a graph that exhausts its heap ends its worker (ERR_WORKER_OUT_OF_MEMORY), not the server
    const resourceLimits = this.options.memoryMb ? { maxOldGenerationSizeMb: this.options.memoryMb } : undefined;
    const worker = new Worker(ENTRY, { workerData: this.setup, stdout: false, stderr: false, resourceLimits });
    let markReady!: () => void;
    let markFailed!: (err: Error) => void;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    ready.catch(() => undefined);
    const slot: Slot = { id: ++this.nextId, worker, ready, tasks: new Map(), retiring: false };
    this.slots.add(slot);
    const log = this.options.log.child({ worker: slot.id });
    const startedAt = performance.now();
    void ready.then(() => log.debug('run worker ready', { ms: Math.round(performance.now() - startedAt) }), () => undefined);
    worker.on('message', (message: FromWorker) => this.receive(slot, message, markReady, markFailed));
    worker.on('error', (err) => {
      slot.crash = err;
      log.error('run worker crashed', { err, runs: [...slot.tasks.keys()] });
    });
    worker.on('exit', (code) => {
      this.slots.delete(slot);
      markFailed(slot.crash ?? new Error(`The run worker exited with code ${code} while starting.`));
      for (const [runId, task] of slot.tasks) {
        task.cleanup();
        task.reject(errorOf(this.endOf(slot, runId, code)));
      }
      const hadRuns = slot.tasks.size > 0;
      slot.tasks.clear();
      // a worker lost with runs in hand is replaced at once; a retired one by the next run
      if (hadRuns && !this.stopping && !slot.retiring) this.spawn();
    });
    return slot;
  }

  /** Why a run of a worker that ended did not finish. */
  private endOf(slot: Slot, runId: string, code: number): RunError {
    if (slot.killed?.runId === runId) return slot.killed.error;
    if (slot.killed) return { error: 'WorkerStopped', message: `The run's worker was terminated because another run on it (${slot.killed.runId}) had to be stopped: ${slot.killed.error.message}` };
    const crash = slot.crash as (Error & { code?: string }) | undefined;
    if (crash?.code === 'ERR_WORKER_OUT_OF_MEMORY') return { error: 'WorkerCrashed', message: 'The run worker ran out of memory; it was replaced.' };
    if (crash) return { error: 'WorkerCrashed', message: `The run worker crashed (${describeError(crash).error}: ${crash.message}); it was replaced.` };
    return { error: 'WorkerCrashed', message: `The run worker exited (code ${code}) while the run was in progress; it was replaced.` };
  }

  private kill(slot: Slot, runId: string, error: RunError): void {
    if (slot.killed || !this.slots.has(slot)) return;
    slot.killed = { runId, error };
    this.options.log.warn('terminating a run worker', { worker: slot.id, run_id: runId, reason: error.error, runs: [...slot.tasks.keys()] });
    void slot.worker.terminate();
  }

  private receive(slot: Slot, message: FromWorker, markReady: () => void, markFailed: (err: Error) => void): void {
    switch (message.type) {
      case 'ready':
        markReady();
        return;
      case 'loadFailed':
        markFailed(errorOf({ error: 'WorkerStartFailed', message: `The run worker could not load the project's graphs: ${message.error.message}` }));
        void slot.worker.terminate();
        return;
      case 'event':
        slot.tasks.get(message.runId)?.publish(message.event, message.data);
        return;
      case 'log':
        this.options.log[message.level](message.message, { worker: slot.id, ...message.fields });
        return;
      case 'call': {
        const task = [...slot.tasks.values()];
        const answered = this.answer(message.target, message.method, message.args).then(
          (value) => this.post(slot, { type: 'reply', id: message.id, value }),
          (err: unknown) => this.post(slot, { type: 'reply', id: message.id, error: describeError(err) }),
        );
        // a run's end waits for the writes it asked for (a call belongs to whichever runs are in hand)
        for (const t of task) {
          t.calls.add(answered);
          void answered.finally(() => t.calls.delete(answered));
        }
        return;
      }
      case 'done':
      case 'failed': {
        const task = slot.tasks.get(message.runId);
        if (!task) return;
        slot.tasks.delete(message.runId);
        task.cleanup();
        void Promise.allSettled([...task.calls]).then(() => (message.type === 'done' ? task.resolve(message.output) : task.reject(errorOf(message.error))));
        if (slot.retiring && slot.tasks.size === 0) void slot.worker.terminate();
        return;
      }
    }
  }

  /** The store as the main thread alone reads and writes it. */
  private async answer(target: string, method: string, args: unknown[]): Promise<unknown> {
    if (target === 'write') return this.options.store.write(args[0] as never);
    if (target === 'apiUrl') return projectApiUrl();
    if (target === 'newestCheckpoint') return newestCheckpoint(this.options.store, String(args[0]));
    if (target === 'collection' && REMOTE_COLLECTION_METHODS.has(method)) {
      const [name, options, ...rest] = args as [string, { indexes?: string[] }, ...unknown[]];
      const collection = this.options.store.collection<object>(name, options) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      return collection[method](...rest);
    }
    if (target === 'memory' && REMOTE_MEMORY_METHODS.has(method) && this.options.memory) {
      const memory = this.options.memory as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      return memory[method](...args);
    }
    throw new Error(`a run worker asked for ${target}.${method}, which the main thread does not answer`);
  }

  private post(slot: Slot, message: ToWorker): void {
    if (this.slots.has(slot)) slot.worker.postMessage(message);
  }
}
