// A run worker pool as the worker tests make it: the repository's graphs by their paths, plain
// functions, each run's first reads from the pool's own store, errors alone logged. A test gives
// the graphs and store it exercises and any option it is about; the rest is this one setup.
import path from 'node:path';
import { RunWorkerPool, type RunWorkerPoolOptions } from '../../src/adapters/run-workers/runWorkerPool.ts';
import { CollectionRunStore } from '../../src/adapters/run-storage/collectionRunStore.ts';
import { createLogger } from '../../src/runtime/logging/logger.ts';
import type { GraphSpec } from '../../src/domain/agent/graphs/graphs.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import { withCompiledModules } from './compiledGraphs.ts';

/** The repository's root, from which the graphs' paths are read. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export interface TestRunWorkerPoolOptions extends Partial<Omit<RunWorkerPoolOptions, 'setup' | 'store'>> {
  /** Graph id → `./file.ts:export` from the repository's root. */
  graphs: Record<string, GraphSpec>;
  store: Store;
  /** Load the graphs from the test run's compiled copies where it has them (support/compiledGraphs.ts). */
  compiled?: boolean;
}

/** A pool of one worker (unless `size` says) over `store`, as the worker tests make it. */
export function testRunWorkerPool({ graphs, store, compiled = false, ...options }: TestRunWorkerPoolOptions): RunWorkerPool {
  return new RunWorkerPool({
    size: 1,
    setup: { graphs: compiled ? withCompiledModules({ graphs }, REPO_ROOT).graphs! : graphs, baseDir: REPO_ROOT, functions: 'plain', fresh: false },
    store,
    ...options,
    // made only when not given: a run store over `store` already reads its collections
    runs: options.runs ?? new CollectionRunStore(store),
    log: options.log ?? createLogger('error'),
  });
}
