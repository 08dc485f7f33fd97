// A run worker started before the pool that takes it (compose/graphsAhead.ts): the start's check
// that the project's graphs load runs in it, on the other core, while the main thread loads the
// rest of the application (issue 86: LangGraph's import, ~0.6 s of CPU, had been the main thread's
// before its first 200). What it says meanwhile is kept and heard by the pool when it takes it.
import { Worker } from 'node:worker_threads';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.ts';

const SOURCES = import.meta.url.endsWith('.ts');
/** The run worker's entry (through tsx's hooks where agentplane runs from its sources). */
export const RUN_WORKER_ENTRY = new URL(SOURCES ? './workerEntry.mjs' : './runWorker.js', import.meta.url);
/** The longest between two heartbeats of a worker and two rounds of the watchdog. */
export const HEARTBEAT_MAX_MS = 5_000;

/** A worker's setup with the run watchdog's heartbeat: a quarter of the limit, so that three may be lost to a busy machine. */
export function withHeartbeat(setup: WorkerSetup, stallMs: number): WorkerSetup {
  return { ...setup, ...(stallMs > 0 ? { heartbeatMs: Math.max(10, Math.min(stallMs / 4, HEARTBEAT_MAX_MS)) } : {}) };
}

/** Starts a run worker; `memoryMb` is its heap limit (a graph that exhausts it ends the worker, not the server). */
export function startRunWorker(setup: WorkerSetup, memoryMb: number | null | undefined): Worker {
  const resourceLimits = memoryMb ? { maxOldGenerationSizeMb: memoryMb } : undefined;
  return new Worker(RUN_WORKER_ENTRY, { workerData: setup, stdout: false, stderr: false, resourceLimits });
}

export interface WorkerListeners {
  message(message: FromWorker): void;
  error(err: Error): void;
  exit(code: number): void;
}

type Heard = { event: 'message'; value: FromWorker } | { event: 'error'; value: Error } | { event: 'exit'; value: number };

export class WorkerAhead {
  readonly worker: Worker;
  private heard: Heard[] = [];
  private isTaken = false;
  private readonly keep = {
    message: (value: FromWorker) => this.heard.push({ event: 'message', value }),
    error: (value: Error) => this.heard.push({ event: 'error', value }),
    exit: (value: number) => this.heard.push({ event: 'exit', value }),
  };

  constructor(
    /** The setup it was started with, completed by `tell`: the pool that takes it starts its others with the same. */
    public setup: WorkerSetup,
    memoryMb: number | null | undefined,
  ) {
    this.worker = startRunWorker(setup, memoryMb);
    // until a pool takes it, it does not hold the process open (a start refused before the application loads exits)
    if (setup.awaitsProject) this.worker.unref();
    this.worker.on('message', this.keep.message);
    this.worker.on('error', this.keep.error);
    this.worker.on('exit', this.keep.exit);
  }

  /** Tells a worker begun before the project compiled (setup.awaitsProject) its modules and the server's URL. */
  tell(modules: Record<string, string> | undefined, apiUrl: string | undefined): void {
    this.worker.postMessage({ type: 'project', modules, apiUrl } satisfies ToWorker);
    const { awaitsProject: _told, libraries: _loaded, ...setup } = this.setup;
    this.setup = { ...setup, modules, apiUrl };
  }

  /** A pool took it. */
  get taken(): boolean {
    return this.isTaken;
  }

  /** The worker, heard from now on by `listeners`, which first hear (in order) what it said meanwhile; undefined once taken. */
  take(listeners: WorkerListeners): Worker | undefined {
    if (this.isTaken) return undefined;
    this.isTaken = true;
    this.worker.ref();
    this.worker.off('message', this.keep.message);
    this.worker.off('error', this.keep.error);
    this.worker.off('exit', this.keep.exit);
    this.worker.on('message', listeners.message);
    this.worker.on('error', listeners.error);
    this.worker.on('exit', listeners.exit);
    const heard = this.heard;
    this.heard = [];
    for (const one of heard) (listeners[one.event] as (value: unknown) => void)(one.value);
    return this.worker;
  }

  /** Ends it, taken or not: the start failed. */
  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}
