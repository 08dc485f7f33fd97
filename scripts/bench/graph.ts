// The graph both servers run for the run benchmark. The upstream dev server only runs
// LangGraph.js graphs, so agentplane's `echo` function (examples/graphs/echo.ts) is wrapped
// in a one-node StateGraph; the same two files are written beside each server, so both run
// byte-identical code on the same @langchain/langgraph version.
import fs from 'node:fs';
import path from 'node:path';
import { SHARED_GRAPH } from './sharedGraph.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BENCH_GRAPH = SHARED_GRAPH;
/** agentplane's own plain-function echo, measured beside the shared graph. */
export const PLAIN_GRAPH = 'echo';

const WRAPPER = `// Written by scripts/bench/graph.ts: agentplane's echo function as a one-node LangGraph graph.
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { echo } from './echo-fn.ts';

export const graph = new StateGraph(MessagesAnnotation)
  .addNode('echo', async (state) => echo(state as never))
  .addEdge('__start__', 'echo')
  .compile();
`;

/** Writes echo-fn.ts and echo-graph.ts into dir; returns the `file:export` spec of the graph. */
export function writeBenchGraph(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'examples/graphs/echo.ts'), path.join(dir, 'echo-fn.ts'));
  fs.writeFileSync(path.join(dir, 'echo-graph.ts'), WRAPPER);
  return `${path.join(dir, 'echo-graph.ts')}:graph`;
}
