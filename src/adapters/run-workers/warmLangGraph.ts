// A worker's warm-up before it says it is ready: one run of a graph of its own (a node that
// answers a message, in memory, every stream mode a client asks for) through LangGraph, so the
// first run of the project's graphs does not pay for LangGraph's first execution (its code
// compiled by V8 on first use: ~0.3 s of a first run's time to its first token, issue 89).
// Nothing leaves the worker: no store, no project code, no trace (skipped where LangSmith
// tracing is on, whose tracer would send this run).
import { AIMessage } from '@langchain/core/messages';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';

const tracingOn = () => [process.env.LANGSMITH_TRACING, process.env.LANGCHAIN_TRACING_V2].some((v) => v?.trim().toLowerCase() === 'true');

export async function warmLangGraph(): Promise<void> {
  if (tracingOn()) return;
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('answer', () => ({ messages: [new AIMessage('warm')] }))
    .addEdge(START, 'answer')
    .addEdge('answer', END)
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: 'warm-up' }, streamMode: ['messages', 'values', 'updates', 'tasks'] as const };
  for await (const event of await graph.stream({ messages: [{ role: 'user', content: 'warm' }] }, { ...config, streamMode: [...config.streamMode] }))
    void event;
}
