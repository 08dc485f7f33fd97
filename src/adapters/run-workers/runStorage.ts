// Which run a run worker's code is executing (issue 86): a store call or a log line is that
// run's. An AsyncLocalStorage tells, but on Node 20 every enabled one costs each promise the
// worker creates a keyed load and a keyed store (async_hooks' init hook propagates every
// storage's value), and @langchain/core enables one of its own in every LangGraph run: the
// storage it finds under a global symbol, made by whichever copy of core or langsmith loads
// first, unless one is there already.
//
// So the worker puts one there first: a RunStorage, which holds each value together with the
// run it was set in. What LangChain (or langsmith, or a project) sets in it carries the run
// along, and reads back as what was set; the worker's own `runIn` sets the run. One storage
// for both: each promise pays once. Where a storage is there already (something loaded before
// the worker), the worker keeps a RunStorage of its own, which costs what a second one did.
import { AsyncLocalStorage } from 'node:async_hooks';

const TRACING_STORAGE = Symbol.for('ls:tracing_async_local_storage');

/** A value of the storage, with the run it was set in. */
class Held {
  constructor(
    readonly store: unknown,
    readonly run: string | undefined,
  ) {}
}

export class RunStorage extends AsyncLocalStorage<unknown> {
  /** The value set, as any AsyncLocalStorage's (LangChain's run tree, or nothing). */
  override getStore(): unknown {
    return (super.getStore() as Held | undefined)?.store;
  }

  /** Runs `callback` with `store` set, in the run it is called in. */
  override run<R, TArgs extends unknown[]>(store: unknown, callback: (...args: TArgs) => R, ...args: TArgs): R {
    const held = super.getStore() as Held | undefined;
    // as any AsyncLocalStorage: set already, nothing is set (nor restored: what the callback enters stays)
    if (Object.is(store, held?.store)) return callback(...args);
    return super.run(new Held(store, held?.run), callback, ...args);
  }

  override enterWith(store: unknown): void {
    super.enterWith(new Held(store, this.currentRun()));
  }

  /** Runs `callback` as run `runId`'s code, with nothing else set (as a run starts upstream). */
  runIn<R>(runId: string, callback: () => R): R {
    return super.run(new Held(undefined, runId), callback);
  }

  /** The run whose code is executing; undefined outside any. */
  currentRun(): string | undefined {
    return (super.getStore() as Held | undefined)?.run;
  }
}

/**
 * The worker's run storage: the global one LangChain will use, set now when none is set yet
 * (call it before any of LangChain's or langsmith's modules load), else one of its own.
 */
export function installRunStorage(global: Record<symbol, unknown> = globalThis as unknown as Record<symbol, unknown>): RunStorage {
  const there = global[TRACING_STORAGE];
  if (there instanceof RunStorage) return there;
  const storage = new RunStorage();
  if (there === undefined) global[TRACING_STORAGE] = storage;
  return storage;
}

/** Set at this module's load: imported first by the run worker, before anything that may load LangChain. */
export const runStorage = installRunStorage();
