// The run path's warm-up after a start (issue 89: the first run's first token came 3-8x later
// than the next runs', V8 compiling the run path's code on first use in the main thread and the
// worker). The warm-up's runs go through the request pipeline, the agent domain, the worker pool
// and a real run worker, and stream; the worker runs them as it does the project's, its checkpoints
// written through the pool into the warm-up's own store: and nothing of them reaches the server's
// store (the pool's, through which a worker's runs read and write), its log above debug, or the
// project's graphs.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore } from '../../src/adapters/embedded/journalStore.ts';
import { CollectionRunStore } from '../../src/adapters/run-storage/collectionRunStore.ts';
import { RunWorkerPool, type WarmUpStores } from '../../src/adapters/run-workers/runWorkerPool.ts';
import { RunsAhead } from '../../src/adapters/run-workers/runsAhead.ts';
import { warmRunPath } from '../../src/compose/runPathWarmUp.ts';
import { createLogger } from '../../src/runtime/logging/logger.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import { tempDir } from '../support/server.ts';
import type { RunExecutor } from '../../src/domain/agent/graphs/runContext.ts';
import type { RunRecord } from '../../src/domain/agent/records.ts';
import { uuid7 } from '../../src/domain/agent/ids.ts';
import { testRunWorkerPool } from '../support/runWorkerPools.ts';

const marker = path.join(tempDir(), 'loads');
/** What reached the server's store and first reads: each call by its name. */
const touched: string[] = [];
const lines: string[] = [];
let store: Store;
let pool: RunWorkerPool;

/** `target` with each of its methods noted in `touched` when called. */
function watched<T extends object>(target: T, name: string): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      const value = Reflect.get(object, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        touched.push(`${name}.${String(key)}`);
        return value.apply(object, args);
      };
    },
  });
}

before(async () => {
  process.env.LOAD_MARKER_FILE = marker;
  store = await openJournalStore({ dataDir: null });
  pool = testRunWorkerPool({
    size: 2,
    graphs: { marked: './test/fixtures/graphs/loadMarker.ts:marked' },
    store: watched(store, 'store'),
    runs: watched(new CollectionRunStore(store), 'runs'),
    log: createLogger('debug', {}, (line) => lines.push(line)),
    // as the server's: a graph the project has (the warm-up's is not one)
    kindOf: (run) => (run.graph_id === 'marked' ? 'plain' : undefined),
  });
  await pool.warm();
});
after(async () => {
  await pool.stop();
  await store.close();
});

it('streams its runs through the pipeline, the domain and a run worker, and leaves the server’s store and log as they were', async () => {
  const messages = await warmRunPath({
    executor: ({ store: warmUpStore, runs }) => pool.warmUpExecutor({ store: watched(warmUpStore, 'warm-up'), runs: watched(runs, 'warm-up-runs') }),
    maxBodyBytes: 1024 * 1024,
  });
  // each run: the tool call's chunk and the answer's words (as `messages`), after the tool's message
  assert.ok(messages >= 3 * 4, `the warm-up's runs streamed their messages events (${messages})`);
  const server = touched.filter((call) => !/^warm-up(-runs)?\./.test(call));
  assert.deepEqual(server, [], 'nothing of the warm-up reached the server’s store or its runs');
  // the worker's run path of the project's runs: the remote store, its checkpoints written through the pool
  assert.ok(
    touched.includes('warm-up.write'),
    `the worker's checkpoints of the warm-up's runs were written through the pool, into the warm-up's store (${[...new Set(touched)].join(', ')})`,
  );
  // and handed the run with its first reads, as a project's LangGraph run is (the worker then reads none itself)
  assert.ok(touched.includes('warm-up-runs.firstReads'), `each run's first reads were read from the warm-up's runs (${[...new Set(touched)].join(', ')})`);
  const shown = lines.map((line) => JSON.parse(line) as { level: string; msg: string }).filter((line) => line.level !== 'debug');
  assert.deepEqual(shown, [], 'the warm-up logged nothing above debug');
  assert.equal(pool.workers(), 1, 'the warm-up ran in the worker made at start, and started none');
  assert.equal(fs.readFileSync(marker, 'utf8').split('\n').filter(Boolean).length, 1, 'the project’s graphs were loaded once, by that worker');
});

it('leaves the worker to a run of the project that comes meanwhile: the run goes beside it, no worker starts', async () => {
  let projectRun: Promise<unknown> | undefined;
  const executor =
    (stores: WarmUpStores): RunExecutor =>
    (run, signal, publish, started) => {
      const warmUp = pool.warmUpExecutor(stores)(run, signal, publish, started);
      // handed to the worker now: the project's run comes while it is there
      projectRun ??= pool.execute(runOf('marked'), new AbortController().signal, () => undefined);
      return warmUp;
    };
  await warmRunPath({ executor, maxBodyBytes: 1024 * 1024 });
  await projectRun;
  assert.equal(pool.workers(), 1, 'the project’s run went to the worker the warm-up was in');
});

// last: runs-ahead, once in front of the pool, stays there
it('takes the path of the project’s runs: over a socket, through runs-ahead, over a store on disk, in a directory of its own that is gone afterwards', async () => {
  const ahead = new RunsAhead(pool, async () => null, { kindOf: () => 'langgraph', log: createLogger('silent') });
  const parentDir = tempDir();
  const seen: { socket: boolean; journal: string[]; asked: string[]; removedAtExit: boolean } = { socket: false, journal: [], asked: [], removedAtExit: false };
  const messages = await warmRunPath({
    maxBodyBytes: 1024 * 1024,
    disk: { fsync: false, cacheBytes: 1024 * 1024 },
    parentDir,
    executor: (stores) =>
      ahead.warmUpExecutor({
        ...stores,
        // asked once a run is in its worker (runs-ahead offers the thread's next run to a run alone in its worker)
        nextOnThread: async (threadId) => {
          seen.asked.push(threadId);
          const [dir] = fs.readdirSync(parentDir);
          seen.socket ||= fs.existsSync(path.join(parentDir, dir, 'http.sock'));
          seen.journal = fs.readdirSync(path.join(parentDir, dir, 'data', 'journal'));
          // a server stopped meanwhile exits before the warm-up's end: its directory is removed at the exit
          seen.removedAtExit ||= process.listeners('exit').some((listener) => listener.name === 'removeWarmUpDir');
          return stores.nextOnThread!(threadId);
        },
      }),
  });
  assert.ok(messages >= 3 * 4, `the warm-up's runs streamed their messages events (${messages})`);
  assert.ok(seen.asked.length >= 3, `runs-ahead asked the warm-up's runs for each thread's next run (${seen.asked.length} times)`);
  assert.ok(seen.journal.length > 0, 'its store wrote a journal on disk');
  if (process.platform !== 'win32') assert.ok(seen.socket, 'its requests came over a socket');
  assert.deepEqual(fs.readdirSync(parentDir), [], 'its directory was removed once it was over');
  assert.ok(seen.removedAtExit, 'while it ran, the process’s exit would have removed its directory');
  assert.ok(!process.listeners('exit').some((listener) => listener.name === 'removeWarmUpDir'), 'and no longer once it was over');
  assert.deepEqual(ahead.startedAhead, { offered: 0, started: 0, went: 0, dropped: 0 }, 'no run was started ahead');
  assert.equal(pool.workers(), 1, 'the warm-up ran in the worker made at start, and started none');
});

function runOf(graphId: string): RunRecord {
  const now = new Date().toISOString();
  return {
    run_id: uuid7(),
    thread_id: uuid7(),
    assistant_id: graphId,
    graph_id: graphId,
    created_at: now,
    updated_at: now,
    status: 'running',
    metadata: {},
    kwargs: { input: { messages: [] } },
    multitask_strategy: 'reject',
    attempt: 1,
  };
}
