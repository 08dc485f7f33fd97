// The main thread's half of the run path's warm-up after a start (issue 89: the first run after
// a start waited for V8 to compile the run path's code on its first use). Once the run worker
// made at start is ready, agentplane's own warm-up graph (domain/agent/graphs/warmUpGraph.ts) is run as a
// client runs a graph: POST /threads, then POST /threads/{id}/runs/stream, a few times, through
// the request pipeline (routing, body reading, validation, the handlers, the reply's check and its
// SSE writing), the agent domain (threads, runs, the run engine and its claims, the event log) and
// the worker pool to a run worker, which executes it as it does the project's runs
// (run-workers/warmRunPath.ts), its store calls answered from the warm-up's store.
//
// Nothing of it is seen: the requests are injected into a pipeline of its own (light-my-request,
// no socket), whose store is in memory (the worker's calls of the warm-up's runs are answered from
// it too), with no access log, no metrics and a silent logger; the project's graphs and code are
// never run. Skipped where a run's spans would be exported or
// LangSmith tracing is on (warmUpWouldShow): the worker would not run the graph there either.
import { openAgentDomain } from '../domain/agent/agentDomain.ts';
import { StoreCheckpointer } from '../domain/agent/checkpoints/checkpointer.ts';
import { GraphRegistry } from '../domain/agent/graphs/graphs.ts';
import { retentionSettings } from '../domain/agent/threads/retention.ts';
import type { RunExecutor } from '../domain/agent/graphs/runContext.ts';
import { WARM_UP_GRAPH, WARM_UP_INPUT, WARM_UP_RUNS, WARM_UP_STREAM_MODES, warmUpGraph } from '../domain/agent/graphs/warmUpGraph.ts';
import { CollectionAssistants } from '../adapters/embedded/collectionAssistants.ts';
import { CollectionCheckpoints } from '../adapters/embedded/collectionCheckpoints.ts';
import { CollectionPlainCheckpoints } from '../adapters/embedded/collectionPlainCheckpoints.ts';
import { CollectionThreads } from '../adapters/embedded/collectionThreads.ts';
import { openJournalStore } from '../adapters/embedded/journalStore.ts';
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
import { ResponseValidators } from '../runtime/transports/http/responseValidators.ts';
import { embeddedRunBackend } from './backend.ts';

export interface RunPathWarmUp {
  /** The executor of the warm-up's runs, their first reads and their workers' store calls answered from `stores` (the worker pool's warmUpExecutor). */
  executor: (stores: WarmUpStores) => RunExecutor;
  /** The server's body limit (config.maxBodyBytes). */
  maxBodyBytes: number;
}

/** Runs the warm-up; says how many `messages` events its runs' streams carried (0: skipped). */
export async function warmRunPath({ executor, maxBodyBytes }: RunPathWarmUp): Promise<number> {
  if (warmUpWouldShow()) return 0;
  const silent = createLogger('silent');
  const store = await openJournalStore({ dataDir: null });
  const checkpointer = new StoreCheckpointer(new CollectionCheckpoints(store));
  const graphs = new GraphRegistry(checkpointer);
  graphs.add(warmUpGraph(await checkpointer.langGraphSaver()));
  const coordination = new LocalCoordination();
  const runBackend = embeddedRunBackend(store, 30_000);
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
    execute: executor({ store, runs: runBackend.runs }),
    locks: { run: (key, work) => coordination.serialize(`thread:${key}`, work) },
    runBackend,
  });
  domain.start();
  try {
    const service = serviceFor(domain, requestOwner(false));
    const { handle } = createPipeline({
      documents: apiDocuments.filter((doc) => doc.key === 'agent-server'),
      handlers: handlerRegistry({ ...threadHandlers((ctx) => service(ctx).threads), ...streamHandlers((ctx) => service(ctx).runs) }),
      keyRing: new KeyRing([]),
      log: silent,
      maxBodyBytes,
      publicUrl: null,
      requireAuthEverywhere: false,
      responseValidators: new ResponseValidators((await loadResponseValidators()).http),
      strictReplies: false,
    });
    const { default: inject } = await import('light-my-request');
    const post = async (url: string, body: unknown) =>
      inject(handle as never, { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    let messages = 0;
    for (let i = 0; i < WARM_UP_RUNS; i++) {
      const thread = (await post('/threads', {})).json() as { thread_id: string };
      const stream_mode = WARM_UP_STREAM_MODES[i % WARM_UP_STREAM_MODES.length];
      const reply = await post(`/threads/${thread.thread_id}/runs/stream`, { assistant_id: WARM_UP_GRAPH, input: WARM_UP_INPUT, stream_mode });
      const streamed = reply.body.match(/^event: messages/gm)?.length ?? 0;
      // a run streamed nothing: the pool refused it (a run of the project's came): the warm-up is over
      if (streamed === 0) break;
      messages += streamed;
    }
    return messages;
  } finally {
    await domain.stop();
  }
}
