// A worker's half of the run path's warm-up (issue 89; the graph: domain/agent/graphs/warmUpGraph.ts).
// Before the worker says it is ready it runs the warm-up graph once through the run path its runs
// take (graphExecutor: the run tracer and its spans, the checkpointer over a store, the events'
// JSON text), on an in-memory store of its own, so that the first run of the project's graphs does
// not pay for V8 compiling that code on first use. Once only before it is ready: a run that waits
// for the worker (one that came early, or needed a worker more) waits for that run too.
// Afterwards it runs the warm-up runs the main thread's half sends it (a `run` marked `warmUp`)
// through an executor made as the project's runs' is (runWorker.ts), over the main thread's store
// as theirs: the same remote store, checkpointer and calls to the main thread, whose first use the
// first run paid for too (a first token ~2x later than the next runs'). Those calls are marked
// `warmUp`, and the pool answers them from the warm-up's own store, never the server's.
//
// Nothing of it is seen: the stores are the warm-up's own, in memory; no project code runs,
// nothing is logged. No warm-up is run where a run's spans would be exported
// (OTEL_EXPORTER_OTLP_ENDPOINT) or LangSmith tracing is on: there the warm-up's runs would be seen.
import { StoreCheckpointer } from '../../domain/agent/checkpoints/checkpointer.ts';
import { graphExecutor } from '../../domain/agent/graphs/graphRunners.ts';
import { GraphRegistry } from '../../domain/agent/graphs/graphs.ts';
import { uuid7 } from '../../domain/agent/ids.ts';
import { PlainStateStore } from '../../domain/agent/checkpoints/plainState.ts';
import type { RunRecord } from '../../domain/agent/records.ts';
import type { RunExecutorWithReads } from '../../domain/agent/graphs/runContext.ts';
import { wireJson } from '../../domain/agent/messages/wireJson.ts';
import { WARM_UP_GRAPH, WARM_UP_STREAM_MODES, warmUpGraph } from '../../domain/agent/graphs/warmUpGraph.ts';
import { runSpanSettings } from '../../domain/ports/spanExport.ts';
import { CollectionCheckpoints } from '../embedded/collectionCheckpoints.ts';
import { CollectionPlainCheckpoints } from '../embedded/collectionPlainCheckpoints.ts';
import { openJournalStore } from '../embedded/journalStore.ts';
import { JsonText } from '../../shared/jsonText.ts';

const tracingOn = () => [process.env.LANGSMITH_TRACING, process.env.LANGCHAIN_TRACING_V2].some((v) => v?.trim().toLowerCase() === 'true');

/** Whether a warm-up run would be seen outside the process (its spans exported, or traced to LangSmith). */
export const warmUpWouldShow = (): boolean => tracingOn() || runSpanSettings().exporter !== undefined;

let made: Promise<RunExecutorWithReads> | undefined;

/** Executes runs of the warm-up graph on a store of its own, in memory. */
export const warmUpExecutor = (): Promise<RunExecutorWithReads> => (made ??= makeExecutor());

async function makeExecutor(): Promise<RunExecutorWithReads> {
  const store = await openJournalStore({ dataDir: null });
  const checkpointer = new StoreCheckpointer(new CollectionCheckpoints(store));
  const graphs = await warmUpGraphRegistry(checkpointer);
  return graphExecutor({ graphs, plain: new PlainStateStore(new CollectionPlainCheckpoints(store)), checkpointer, valuesAsText: true });
}

/** The warm-up graph alone, its checkpoints kept by `checkpointer`. */
export async function warmUpGraphRegistry(checkpointer: StoreCheckpointer): Promise<GraphRegistry> {
  const graphs = new GraphRegistry(checkpointer);
  graphs.add(warmUpGraph(await checkpointer.langGraphSaver()));
  return graphs;
}

/** Runs the warm-up graph `runs` times, its events made into JSON text as a worker posts them and dropped; says how many there were. */
export async function warmRunPath(runs = 1): Promise<number> {
  if (warmUpWouldShow()) return 0;
  const execute = await warmUpExecutor();
  let events = 0;
  const publish = (_event: string, data: unknown) => {
    if ((data instanceof JsonText ? data.text : wireJson(data)) !== undefined) events += 1;
  };
  const threadId = uuid7();
  for (let i = 0; i < runs; i++)
    await execute(warmUpRun(threadId, WARM_UP_STREAM_MODES[i % WARM_UP_STREAM_MODES.length]), new AbortController().signal, publish);
  return events;
}

function warmUpRun(threadId: string, streamMode: string[]): RunRecord {
  const now = new Date().toISOString();
  return {
    run_id: uuid7(),
    thread_id: threadId,
    assistant_id: WARM_UP_GRAPH,
    graph_id: WARM_UP_GRAPH,
    created_at: now,
    updated_at: now,
    status: 'running',
    metadata: {},
    kwargs: { input: { messages: [{ type: 'human', content: 'what is 6 * 7?', id: uuid7() }] }, stream_mode: streamMode, config: { configurable: {} } },
    multitask_strategy: 'reject',
    attempt: 1,
  };
}
