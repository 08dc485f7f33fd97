// The bench graph as LangGraph alone runs it, for graphAloneRunner.ts and graphAlonePaced.ts:
// the graph module imported in this process with LangGraph's in-memory checkpointer (the
// upstream dev server's kind), and one run of it as a server's background run makes it.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { MemorySaver } from '@langchain/langgraph';

export type Streamable = {
  checkpointer?: unknown;
  stream(input: unknown, options: unknown): Promise<AsyncIterable<unknown>>;
};

/** The graph a `file:export` spec names (graph.ts's writeBenchGraph), given a MemorySaver. */
export async function loadGraphAlone(spec: string): Promise<Streamable> {
  const [file, exportName] = spec.split(/:(?=[^:]+$)/);
  const graph = (await import(pathToFileURL(file).href))[exportName] as Streamable;
  graph.checkpointer = new MemorySaver();
  return graph;
}

/** One run on the thread with a new user message (`<prefix> <uuid>`), read to its end. */
export async function runAlone(graph: Streamable, threadId: string, prefix: string): Promise<void> {
  const input = { messages: [{ role: 'user', content: `${prefix} ${randomUUID()}` }] };
  // a background run's default stream mode on both servers
  for await (const chunk of await graph.stream(input, { configurable: { thread_id: threadId }, streamMode: 'values' })) void chunk;
}
