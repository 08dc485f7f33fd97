// The main thread's half of the run path's warm-up after a start (issue 89: the first run after
// a start waited for V8 to compile the run path's code on its first use). Once the run worker
// made at start is ready, agentplane's own warm-up graph (domain/agent/graphs/warmUpGraph.ts) is run as a
// client runs a graph: POST /threads, then POST /threads/{id}/runs/stream, a few times, over a
// socket, through the request pipeline (routing, body reading, stream slots, validation, the
// handlers, the reply's check and its SSE writing, the request's metrics and access line), the
// agent domain (threads, runs, the run engine and its claims, the event log, the run's end and its
// metrics) over a store as the server's (the embedded store on disk: its journal, paged records),
// and the worker pool, through runs-ahead where the server starts runs ahead, to a run worker,
// which executes it as it does the project's runs (run-workers/warmRunPath.ts), its store calls
// answered from the warm-up's store.
//
// Nothing of it is seen: the requests come over a socket of its own (a Unix socket, or a named pipe,
// in a directory of its own that is removed afterwards, as the warm-up's store on disk is), into a
// pipeline of its own whose metrics and access lines go nowhere, with a silent logger; the store is
// the warm-up's own (the worker's calls of the warm-up's runs are answered from it too); the
// project's graphs and code are never run. Skipped where a run's spans would be exported or
// LangSmith tracing is on (warmUpWouldShow): the worker would not run the graph there either.
import fs from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { openAgentDomain } from '../domain/agent/agentDomain.ts';
import { StoreCheckpointer } from '../domain/agent/checkpoints/checkpointer.ts';
import { GraphRegistry } from '../domain/agent/graphs/graphs.ts';
import { retentionSettings } from '../domain/agent/threads/retention.ts';
import type { RunExecutor } from '../domain/agent/graphs/runContext.ts';
import type { RunEnded } from '../domain/agent/runs/runEngine.ts';
import { WARM_UP_GRAPH, WARM_UP_INPUT, WARM_UP_RUNS, WARM_UP_STREAM_MODES, warmUpGraph } from '../domain/agent/graphs/warmUpGraph.ts';
import { CollectionAssistants } from '../adapters/embedded/collectionAssistants.ts';
import { CollectionCheckpoints } from '../adapters/embedded/collectionCheckpoints.ts';
import { CollectionPlainCheckpoints } from '../adapters/embedded/collectionPlainCheckpoints.ts';
import { CollectionThreads } from '../adapters/embedded/collectionThreads.ts';
import { openJournalStore, type JournalStore } from '../adapters/embedded/journalStore.ts';
import { LocalCoordination } from '../adapters/embedded/localCoordination.ts';
import { warmUpWouldShow } from '../adapters/run-workers/warmRunPath.ts';
import type { WarmUpStores } from '../adapters/run-workers/runWorkerPool.ts';
import { requestOwner, serviceFor } from '../handlers/agent-server/owner.ts';
import { streamHandlers } from '../handlers/agent-server/runStreams.ts';
import { threadHandlers } from '../handlers/agent-server/threads.ts';
import { apiDocuments, loadResponseValidators } from '../runtime/api.ts';
import { KeyRing } from '../runtime/security/auth.ts';
import { handlerRegistry } from '../runtime/handler.ts';
import { createLogger } from '../runtime/logging/logger.ts';
import { createPipeline } from '../runtime/transports/http/pipeline.ts';
import { RequestIdResponse } from '../runtime/transports/http/requestIdResponse.ts';
import { ResponseValidators } from '../runtime/transports/http/responseValidators.ts';
import { StreamSlots } from '../runtime/transports/streamSlots.ts';
import { Metrics } from '../runtime/metrics/metrics.ts';
import { registerRunMetrics } from '../domain/agent/runs/runMetrics.ts';
import { embeddedRunBackend } from './backend.ts';

export interface RunPathWarmUp {
  /** The executor of the warm-up's runs, their first reads and their workers' store calls answered from `stores` (the worker pool's, or runs-ahead's, warmUpExecutor). */
  executor: (stores: WarmUpStores) => RunExecutor;
  /** The server's body limit (config.maxBodyBytes). */
  maxBodyBytes: number;
  /** The server's embedded store on disk, as its warm-up's is opened (in a directory of its own); absent: the warm-up's store is in memory. */
  disk?: { fsync: boolean; cacheBytes: number };
  /** Where the warm-up's directory (its socket, its store on disk) is made, and removed once it is over (the system's temporary directory). */
  parentDir?: string;
}

/** Runs the warm-up; says how many `messages` events its runs' streams carried (0: skipped). */
export async function warmRunPath({ executor, maxBodyBytes, disk, parentDir = os.tmpdir() }: RunPathWarmUp): Promise<number> {
  if (warmUpWouldShow()) return 0;
  const silent = createLogger('silent');
  const dir = fs.mkdtempSync(path.join(parentDir, 'agentplane-warm-up-'));
  // a server stopped while it runs exits before its end: its directory goes all the same
  const removeWarmUpDir = () => fs.rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeWarmUpDir);
  try {
    const store = await openJournalStore({ dataDir: disk ? path.join(dir, 'data') : null, fsync: disk?.fsync, cacheBytes: disk?.cacheBytes, log: silent });
    try {
      return await warmThrough(store, { executor, maxBodyBytes }, dir);
    } finally {
      await store.close();
    }
  } finally {
    process.off('exit', removeWarmUpDir);
    removeWarmUpDir();
  }
}

async function warmThrough(store: JournalStore, { executor, maxBodyBytes }: RunPathWarmUp, dir: string): Promise<number> {
  const silent = createLogger('silent');
  const checkpointer = new StoreCheckpointer(new CollectionCheckpoints(store));
  const graphs = new GraphRegistry(checkpointer);
  graphs.add(warmUpGraph(await checkpointer.langGraphSaver()));
  const coordination = new LocalCoordination();
  const runBackend = embeddedRunBackend(store, 30_000);
  // the request's and the run's metrics as the server's count them, into a registry no one reads
  const metrics = new Metrics();
  const runEnded: ((ended: RunEnded) => void)[] = [];
  const domain = await openAgentDomain({
    store,
    repositories: {
      threads: new CollectionThreads(store),
      assistants: new CollectionAssistants(store),
      plainCheckpoints: new CollectionPlainCheckpoints(store),
    },
    graphs,
    checkpointer,
    log: silent,
    maxConcurrentRuns: 1,
    retention: retentionSettings(undefined),
    execute: executor({ store, runs: runBackend.runs, nextOnThread: runBackend.nextOnThread ?? undefined }),
    locks: { run: (key, work) => coordination.serialize(`thread:${key}`, work) },
    runBackend,
    onRunEnded: (ended) => runEnded.forEach((listener) => listener(ended)),
  });
  runEnded.push(registerRunMetrics(metrics, { store, busyWorkers: () => domain.executingRuns(), workerLimit: 1 }));
  domain.start();
  let server: Server | undefined;
  try {
    const service = serviceFor(domain, requestOwner(false));
    // its access lines are made as the server's and go nowhere
    const access = createLogger('info', {}, () => undefined);
    const { handle } = createPipeline({
      documents: apiDocuments.filter((doc) => doc.key === 'agent-server'),
      handlers: handlerRegistry({ ...threadHandlers((ctx) => service(ctx).threads), ...streamHandlers((ctx) => service(ctx).runs) }),
      keyRing: new KeyRing([]),
      log: silent,
      maxBodyBytes,
      streamSlots: new StreamSlots(WARM_UP_RUNS, WARM_UP_RUNS),
      publicUrl: null,
      requireAuthEverywhere: false,
      responseValidators: new ResponseValidators((await loadResponseValidators()).http),
      strictReplies: false,
      observe: (answered) => {
        metrics.observeRequest(answered.operationId, answered.method, answered.status, answered.seconds);
        access.access(answered);
      },
    });
    server = createServer({ ServerResponse: RequestIdResponse }, (req, res) => void handle(req, res));
    const socketPath = process.platform === 'win32' ? path.join('\\\\?\\pipe', path.basename(dir)) : path.join(dir, 'http.sock');
    await new Promise<void>((resolve, reject) => server!.once('error', reject).listen(socketPath, resolve));
    const post = (url: string, body: unknown) => posted(socketPath, url, JSON.stringify(body));
    let messages = 0;
    for (let i = 0; i < WARM_UP_RUNS; i++) {
      const thread = JSON.parse(await post('/threads', {})) as { thread_id: string };
      const stream_mode = WARM_UP_STREAM_MODES[i % WARM_UP_STREAM_MODES.length];
      const reply = await post(`/threads/${thread.thread_id}/runs/stream`, { assistant_id: WARM_UP_GRAPH, input: WARM_UP_INPUT, stream_mode });
      const streamed = reply.match(/^event: messages/gm)?.length ?? 0;
      // a run streamed nothing: the pool refused it (a run of the project's came): the warm-up is over
      if (streamed === 0) break;
      messages += streamed;
    }
    return messages;
  } finally {
    await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
    await domain.stop();
  }
}

/** POSTs `body` as JSON over the socket at `socketPath`; resolves with the reply's body, read to its end. */
function posted(socketPath: string, url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: url, method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
