// `npx tsx scripts/bench/callbacksCost.ts [rounds]` (issue 86): what LangChain's callbacks and the
// run tracer cost a LangGraph run, in this process alone (no server, no threads: the CPU of one
// thread is the least moved figure on a shared machine). The bench's echo graph, on LangGraph's
// MemorySaver, streamed as a background run streams (`values`), 200 runs a round over 100 threads,
// in four ways taken in turns (the order flipped each round):
// - `none`: no callbacks and no metadata (LangGraph alone, as graphAloneRunner.ts runs it);
// - `empty`: an empty callbacks array and the run metadata the server passes (runMetadata in
//   graphRunners.ts): LangChain then builds a callback manager for every runnable call;
// - `tracer`: the run tracer as the server's runs have it (its spans, the trace it hands back);
// - `tracer without node attributes`: the same without the node spans' input and output (their
//   JSON length and bounded text), to tell that part from the spans themselves;
// - `tracer ignoring chains`: the tracer with `ignoreChain` (no node spans; LangChain's callback
//   managers still made for every runnable, model and tool calls still told): what node spans
//   built from anything but chain callbacks could save at most;
// - `tracer ignoring chains, tasks streamed`: the same with LangGraph's `tasks` stream mode added
//   (a task's start and result, what node spans could be built from), its chunks dropped.
// Prints each way's median CPU a run (ms) with its quartiles.
import { randomUUID } from 'node:crypto';
import { MemorySaver, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import type { Serialized } from '@langchain/core/load/serializable';
import type { ChainValues } from '@langchain/core/utils/types';
import { RunTracer, type TracedRun } from '../../src/domain/agent/tracing/runTracer.ts';
import { useLinearCallbackCopy } from '../../src/domain/agent/tracing/callbackManagerCopy.ts';
import { runSpans } from '../../src/domain/agent/tracing/runSpans.ts';

const ROUNDS = Number(process.argv[2] ?? 20);
const RUNS = 200;
const THREADS = 100;

useLinearCallbackCopy();
runSpans();
const graph = new StateGraph(MessagesAnnotation)
  .addNode('echo', async (state) => ({ messages: [{ role: 'ai', content: String(state.messages.at(-1)?.content) }] }))
  .addEdge('__start__', 'echo')
  .compile({ checkpointer: new MemorySaver() });

/** The tracer with node spans that carry no input or output: what the spans cost without them. */
class TracerWithoutNodeAttributes extends RunTracer {
  override handleChainStart(
    chain: Serialized,
    _inputs: ChainValues,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runType?: string,
    runName?: string,
  ): void {
    super.handleChainStart(chain, {}, runId, parentRunId, tags, metadata, runType, runName);
  }

  override handleChainEnd(_outputs: ChainValues, runId: string): void {
    super.handleChainEnd({}, runId);
  }
}

/** The tracer told of no chain (LangChain's manager skips it for them): no node spans, the managers still made. */
class TracerIgnoringChains extends RunTracer {
  override ignoreChain = true;
}

type Way = 'none' | 'empty' | 'tracer' | 'tracer without node attributes' | 'tracer ignoring chains' | 'tracer ignoring chains, tasks streamed';
const WAYS: Way[] = ['none', 'empty', 'tracer', 'tracer without node attributes', 'tracer ignoring chains', 'tracer ignoring chains, tasks streamed'];
const tracerOf = (way: Way, run: TracedRun) =>
  way === 'tracer'
    ? new RunTracer(run)
    : way === 'tracer without node attributes'
      ? new TracerWithoutNodeAttributes(run)
      : way.startsWith('tracer ignoring chains')
        ? new TracerIgnoringChains(run)
        : undefined;

let round = 0;
async function runs(way: Way, count: number): Promise<void> {
  round += 1;
  for (let i = 0; i < count; i++) {
    // fresh threads each round: a thread's history (what a run reads and writes) stays 0–4 runs long
    const threadId = `t${i % THREADS}-${round}`;
    const runId = randomUUID();
    const tracer = tracerOf(way, { runId, threadId, graphId: 'echo', assistantId: 'echo' });
    const metadata = {
      run_attempt: 1,
      langgraph_version: '1',
      langgraph_plan: 'developer',
      langgraph_host: 'self-hosted',
      run_id: runId,
      thread_id: threadId,
      graph_id: 'echo',
      assistant_id: 'echo',
    };
    const options = {
      configurable: { thread_id: threadId, run_id: runId },
      // the node spans' data from LangGraph's own stream (its `tasks` chunks: each task's start and result)
      streamMode: way === 'tracer ignoring chains, tasks streamed' ? ['values' as const, 'tasks' as const] : ['values' as const],
      signal: new AbortController().signal,
      ...(way === 'none' ? {} : { metadata, callbacks: tracer ? [tracer] : [] }),
    };
    for await (const chunk of await graph.stream({ messages: [{ role: 'user', content: `hello ${i}` }] }, options)) void chunk;
    tracer?.finish();
  }
}

for (const way of WAYS) await runs(way, 3 * RUNS); // warm every way up first
const cpu = new Map<Way, number[]>();
for (let r = 0; r < ROUNDS; r++) {
  for (const way of r % 2 ? [...WAYS].reverse() : WAYS) {
    const before = process.cpuUsage();
    await runs(way, RUNS);
    const used = process.cpuUsage(before);
    cpu.set(way, [...(cpu.get(way) ?? []), (used.user + used.system) / 1000 / RUNS]);
  }
}
const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!.toFixed(3);
for (const [way, xs] of cpu) console.log(`${way}: ${at(xs, 0.5)} ms a run (quartiles ${at(xs, 0.25)}–${at(xs, 0.75)})`);
