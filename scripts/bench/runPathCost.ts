// `npx tsx scripts/bench/runPathCost.ts [rounds] [tree…]` (issue 86): what a run worker's run path
// costs a LangGraph run beyond LangGraph alone, in this one process (no server, no threads, no
// posts: the CPU of one thread is the least moved figure on a shared machine). The bench's echo
// graph (graph.ts's wrapper of examples/graphs/echo.ts), 100 threads × 5 runs a round, each run
// streamed to its end before the next (a worker's runs take turns on its one thread), in ways
// taken in turns (the order flipped each round):
// - `alone`: LangGraph's MemorySaver, no callbacks (graphAloneRunner.ts's way);
// - `saver`: the store's checkpointer (StoreCheckpointer over an in-memory journal store, the
//   thread held for the run as graphExecutor holds it), no callbacks;
// - `saver+tracer`: the same with the run tracer and the run's metadata, as graphRunners.ts passes them;
// - `path <tree>`: graphExecutor of that tree (`.`: this one; another tree's sources, e.g. a
//   worktree of main), the runs' events made into the text a worker posts. Every tree given is one way.
// Prints each way's median CPU a run (ms) with its quartiles, and the steps between the ways.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MemorySaver, MessagesAnnotation, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { echo } from '../../examples/graphs/echo.ts';

const ROUNDS = Number(process.argv[2] ?? 8);
const trees = process.argv.slice(3).length ? process.argv.slice(3) : ['.'];
const THREADS = 100;
const PER_THREAD = 5;
const ROOT = path.resolve(import.meta.dirname, '../..');

const echoGraph = (checkpointer: BaseCheckpointSaver) =>
  new StateGraph(MessagesAnnotation)
    .addNode('echo', async (state) => echo(state as never))
    .addEdge('__start__', 'echo')
    .compile({ checkpointer });

type Run = (threadId: string, i: number) => Promise<void>;

const input = (i: number) => ({ messages: [{ role: 'user', content: `hello ${i} ${randomUUID()}` }] });

/** The tree's modules the ways need (its sources, through tsx). */
async function treeModules(tree: string) {
  const root = tree === '.' ? ROOT : path.resolve(tree);
  const load = <T>(file: string) => import(pathToFileURL(path.join(root, file)).href) as Promise<T>;
  return {
    checkpointer: await load<typeof import('../../src/domain/agent/checkpoints/checkpointer.ts')>('src/domain/agent/checkpoints/checkpointer.ts'),
    collection: await load<typeof import('../../src/adapters/embedded/collectionCheckpoints.ts')>('src/adapters/embedded/collectionCheckpoints.ts'),
    plainCollection: await load<typeof import('../../src/adapters/embedded/collectionPlainCheckpoints.ts')>(
      'src/adapters/embedded/collectionPlainCheckpoints.ts',
    ),
    plainState: await load<typeof import('../../src/domain/agent/checkpoints/plainState.ts')>('src/domain/agent/checkpoints/plainState.ts'),
    journal: await load<typeof import('../../src/adapters/embedded/journalStore.ts')>('src/adapters/embedded/journalStore.ts'),
    runners: await load<typeof import('../../src/domain/agent/graphs/graphRunners.ts')>('src/domain/agent/graphs/graphRunners.ts'),
    registry: await load<typeof import('../../src/domain/agent/graphs/graphs.ts')>('src/domain/agent/graphs/graphs.ts'),
    tracer: await load<typeof import('../../src/domain/agent/tracing/runTracer.ts')>('src/domain/agent/tracing/runTracer.ts'),
    copy: await load<typeof import('../../src/domain/agent/tracing/callbackManagerCopy.ts')>('src/domain/agent/tracing/callbackManagerCopy.ts'),
    spans: await load<typeof import('../../src/domain/agent/tracing/runSpans.ts')>('src/domain/agent/tracing/runSpans.ts'),
    wire: await load<typeof import('../../src/domain/agent/messages/wireJson.ts')>('src/domain/agent/messages/wireJson.ts'),
    text: await load<typeof import('../../src/shared/jsonText.ts')>('src/shared/jsonText.ts'),
  };
}

const metadataOf = (runId: string, threadId: string) => ({
  run_attempt: 1,
  langgraph_version: '1.4.18',
  langgraph_plan: 'developer',
  langgraph_host: 'self-hosted',
  langgraph_api_url: 'http://127.0.0.1:2024',
  run_id: runId,
  thread_id: threadId,
  graph_id: 'echo_graph',
  assistant_id: 'echo_graph',
});

async function ways(): Promise<Map<string, Run>> {
  const out = new Map<string, Run>();
  const alone = echoGraph(new MemorySaver());
  out.set('alone', async (threadId, i) => {
    for await (const chunk of await alone.stream(input(i), { configurable: { thread_id: threadId }, streamMode: 'values' })) void chunk;
  });
  const own = await treeModules('.');
  own.copy.useLinearCallbackCopy();
  own.spans.runSpans();
  const store = await own.journal.openJournalStore({ dataDir: null });
  const checkpointer = new own.checkpointer.StoreCheckpointer(new own.collection.CollectionCheckpoints(store));
  const held = echoGraph(await checkpointer.langGraphSaver());
  const saverWay =
    (traced: boolean): Run =>
    async (threadId, i) => {
      const runId = randomUUID();
      const tracer = traced ? new own.tracer.RunTracer({ runId, threadId, graphId: 'echo_graph', assistantId: 'echo_graph' }) : undefined;
      const hold = checkpointer.hold(threadId, { deferFailures: true });
      try {
        const options = {
          configurable: { thread_id: threadId, run_id: runId, assistant_id: 'echo_graph', graph_id: 'echo_graph' },
          streamMode: ['values' as const],
          signal: new AbortController().signal,
          durability: 'async' as const,
          ...(traced ? { metadata: metadataOf(runId, threadId), callbacks: [tracer!], runId } : {}),
        };
        for await (const chunk of await held.stream(input(i), options)) void chunk;
        await hold.settled();
        tracer?.finish();
      } finally {
        hold.release(true);
      }
    };
  out.set('saver', saverWay(false));
  out.set('saver+tracer', saverWay(true));
  for (const tree of trees) {
    const m = tree === '.' ? own : await treeModules(tree);
    const treeStore = await m.journal.openJournalStore({ dataDir: null });
    const treeCheckpointer = new m.checkpointer.StoreCheckpointer(new m.collection.CollectionCheckpoints(treeStore));
    const graphs = new m.registry.GraphRegistry(treeCheckpointer);
    graphs.add({ id: 'echo_graph', kind: 'langgraph', graph: echoGraph(await treeCheckpointer.langGraphSaver()) as never });
    const execute = m.runners.graphExecutor({
      graphs,
      plain: new m.plainState.PlainStateStore(new m.plainCollection.CollectionPlainCheckpoints(treeStore)),
      checkpointer: treeCheckpointer,
      valuesAsText: true,
    });
    // as a worker posts an event: its JSON text
    const publish = (_event: string, data: unknown) => void (data instanceof m.text.JsonText ? data.text : m.wire.wireJson(data));
    out.set(`path ${tree}`, async (threadId, i) => {
      const now = new Date().toISOString();
      const run = {
        run_id: randomUUID(),
        thread_id: threadId,
        assistant_id: 'echo_graph',
        graph_id: 'echo_graph',
        created_at: now,
        updated_at: now,
        status: 'running',
        metadata: {},
        kwargs: { input: input(i), config: { configurable: {} } },
        multitask_strategy: 'enqueue',
        attempt: 1,
      } as never;
      await execute(run, new AbortController().signal, publish);
    });
  }
  return out;
}

let round = 0;
async function runs(run: Run): Promise<void> {
  round += 1;
  // fresh threads each round, as the fresh phase's scenario: a thread's history stays PER_THREAD runs long
  for (let r = 0; r < PER_THREAD; r++) for (let t = 0; t < THREADS; t++) await run(`t${t}-${round}`, r);
}

const all = await ways();
for (const run of all.values()) await runs(run); // every way warmed up first
for (const run of all.values()) await runs(run);
const cpu = new Map<string, number[]>();
const names = [...all.keys()];
for (let r = 0; r < ROUNDS; r++) {
  for (const name of r % 2 ? [...names].reverse() : names) {
    const before = process.cpuUsage();
    await runs(all.get(name)!);
    const used = process.cpuUsage(before);
    cpu.set(name, [...(cpu.get(name) ?? []), (used.user + used.system) / 1000 / (THREADS * PER_THREAD)]);
  }
}
const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;
for (const [name, xs] of cpu) console.log(`${name}: ${at(xs, 0.5).toFixed(3)} ms a run (quartiles ${at(xs, 0.25).toFixed(3)}–${at(xs, 0.75).toFixed(3)})`);
