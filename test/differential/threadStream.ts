// What an app built on the SDK's `client.threads.stream()` (protocol v2) sees of one run of
// the differential project's `assistant` graph: the messages token by token, the tool call
// with its output, the subgraph that stops for approval, the interrupt, the resumed run and
// the final state, over SSE or WebSocket. The differential suite compares it between the
// upstream dev server and agentplane; test/handlers/agent-server/protocol.threadStream.test.ts asserts it on
// agentplane.
import { Client } from '@langchain/langgraph-sdk';
import WebSocket from 'ws';

type StreamEvent = { method: string; seq?: number; params: { namespace: string[]; data: any } };

/** Polls `check` until it holds (or fails with `what` after `timeoutMs`). */
export async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const starts = (events: StreamEvent[]) => events.filter((e) => e.method === 'messages' && e.params.data?.event === 'message-start').length;
const rootLifecycle = (events: StreamEvent[], state: string) =>
  events.some((e) => e.method === 'lifecycle' && e.params.namespace.length === 0 && e.params.data?.event === state);
/** A namespace without its task ids ("review:1f…" → "review"), as a person names a subgraph. */
const path = (namespace: string[]) => namespace.map((segment) => segment.split(':')[0]);

export interface ThreadStreamObservation {
  /** Every message up to the interrupt, in order: where it came from, its text as streamed (token by token). */
  messages: { node: string | undefined; namespace: string[]; tokens: string[] }[];
  /** The text deltas of the resumed run's messages. */
  resumedText: string[];
  toolCalls: { name: string; callId: string; input: unknown; output: unknown }[];
  subgraphs: { name: string; namespace: string[] }[];
  interrupts: { payload: unknown; namespace: string[] }[];
  interruptedBeforeAnswer: boolean;
  /** Methods of the events the thread saw, in order, with their namespace path. */
  methods: string[];
  finalMessages: string[];
  /** Every event seen once (none twice across subscriptions), each with its own seq. */
  seqUnique: boolean;
}

export interface Server {
  url: string;
  headers: Record<string, string>;
}

/** A ThreadStream on the `assistant` graph (a new thread, or `threadId`) over SSE or WebSocket. */
function openThread(server: Server, transport: 'sse' | 'websocket' = 'sse', threadId?: string) {
  const options = { assistantId: 'assistant' };
  if (transport === 'websocket') {
    // the SDK's WebSocket refuses default headers (a browser's cannot send them): Node's `ws` carries them
    const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
    const ws = { ...options, transport: 'websocket' as const, webSocketFactory: (url: string) => new WebSocket(url, { headers: server.headers }) as never };
    return threadId ? client.threads.stream(threadId, ws) : client.threads.stream(ws);
  }
  const client = new Client({ apiUrl: server.url, defaultHeaders: server.headers, callerOptions: { maxRetries: 0 } });
  return threadId ? client.threads.stream(threadId, options) : client.threads.stream(options);
}

/** Asks the `assistant` graph `question`, answers its approval with `answer`, reads everything on the way. */
export async function followAssistant(server: Server, options: { question: string; answer: string; transport?: 'sse' | 'websocket' }) {
  const thread = openThread(server, options.transport);
  const seen: StreamEvent[] = [];
  thread.onEvent((event) => seen.push(event as unknown as StreamEvent));
  const observed: ThreadStreamObservation = {
    messages: [],
    resumedText: [],
    toolCalls: [],
    subgraphs: [],
    interrupts: [],
    interruptedBeforeAnswer: false,
    methods: [],
    finalMessages: [],
    seqUnique: false,
  };
  const read: (ThreadStreamObservation['messages'][number] & { done: boolean })[] = [];
  const calls: ThreadStreamObservation['toolCalls'] = [];
  const subgraphs: ThreadStreamObservation['subgraphs'] = [];
  const readers = [
    (async () => {
      for await (const message of thread.messages) {
        const entry = { node: message.node, namespace: path(message.namespace), tokens: [] as string[], done: false };
        read.push(entry);
        for await (const token of message.text) entry.tokens.push(token);
        entry.done = true;
      }
    })(),
    (async () => {
      for await (const call of thread.toolCalls) {
        const entry = { name: call.name, callId: call.callId, input: call.input, output: undefined as unknown };
        calls.push(entry);
        entry.output = await call.output;
      }
    })(),
    (async () => {
      for await (const subgraph of thread.subgraphs) subgraphs.push({ name: subgraph.name, namespace: path(subgraph.namespace) });
    })(),
  ];
  try {
    await thread.run.start({ input: { messages: [{ role: 'user', content: options.question }] } });
    await until(() => thread.interrupted && rootLifecycle(seen, 'interrupted'), 'the run to stop for approval');
    observed.interruptedBeforeAnswer = thread.interrupted;
    await until(() => read.length === starts(seen) && read.every((m) => m.done), 'every message read');
    observed.messages = read.map(({ done: _, ...m }) => structuredClone(m));
    // tool calls and subgraphs as they stood at the interrupt (a resumed run re-announces
    // what it re-enters as it pleases)
    await until(() => calls.every((c) => c.output !== undefined), "the tool calls' outputs");
    observed.toolCalls = structuredClone(calls);
    observed.subgraphs = structuredClone(subgraphs);
    observed.interrupts = thread.interrupts.map((i) => ({ payload: i.payload, namespace: path(i.namespace) }));
    const [pending] = thread.interrupts;
    // counted before the answer is sent: the resumed run's first events may reach the client
    // before the command's own reply does (a short run, the SSE stream read first)
    const answeredAt = seen.length;
    await thread.input.respond({ interrupt_id: pending.interruptId, namespace: pending.namespace, response: options.answer });
    await until(() => rootLifecycle(seen, 'completed'), 'the resumed run to complete');
    // the resumed run's message, from its events (over WebSocket upstream's own server and
    // the SDK's `messages` projection sometimes leave it out once the first run was interrupted)
    const finished = (e: StreamEvent) => e.method === 'messages' && e.params.data?.event === 'message-finish';
    await until(() => seen.slice(answeredAt).some(finished), "the resumed run's message");
    observed.resumedText = seen
      .slice(answeredAt)
      .filter((e) => e.method === 'messages' && e.params.data?.event === 'content-block-delta')
      .map((e) => e.params.data.delta?.text ?? '');
    const state = (await thread.state.get({ namespace: [] })) as { values?: { messages?: { type: string; content: unknown }[] } };
    observed.finalMessages = (state.values?.messages ?? []).map((m) => `${m.type}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
  } finally {
    await thread.close();
    await Promise.race([Promise.allSettled(readers), new Promise((resolve) => setTimeout(resolve, 5_000))]);
  }
  // (over WebSocket each subscription delivers in its own order: sorted by seq, as the server numbered them)
  const bySeq = [...seen].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  observed.methods = bySeq.map((e) => `${e.method} ${path(e.params.namespace).join('/')}`);
  observed.seqUnique = new Set(seen.map((e) => e.seq)).size === seen.length;
  return { observed, threadId: thread.threadId };
}

/**
 * A client that comes back (a reload, a second tab): a new ThreadStream on the thread, its
 * subscription replayed from the server's buffer — every lifecycle and messages event of both
 * runs, in order, up to the end of the last one.
 */
export async function replayThread(server: Server, threadId: string, transport: 'sse' | 'websocket' = 'sse') {
  const thread = openThread(server, transport, threadId);
  const events: StreamEvent[] = [];
  try {
    const subscription = await thread.subscribe(['lifecycle', 'messages']);
    // the SDK pauses a subscription (its iteration ends) a macrotask after a root terminal
    // event, the first run's interrupt here, and resumes it when a later event comes: read
    // across pauses, as the SDK's own consumers do, or the resumed run is missed whenever its
    // events arrive after that macrotask (under load)
    const reading = (async () => {
      while (true) {
        for await (const event of subscription) events.push(event as unknown as StreamEvent);
        if (!subscription.isPaused) return;
        await subscription.waitForResume();
      }
    })();
    const completed = (e: StreamEvent) => e.method === 'lifecycle' && e.params.namespace.length === 0 && e.params.data?.event === 'completed';
    await until(() => events.some(completed), 'the replay to reach the end of the resumed run');
    await subscription.unsubscribe();
    await Promise.race([reading, new Promise((resolve) => setTimeout(resolve, 2_000))]);
  } finally {
    await thread.close();
  }
  return {
    events: events.map((e) => `${e.seq} ${e.method} ${path(e.params.namespace).join('/')} ${e.params.data?.event ?? ''}`),
    text: events.filter((e) => e.params.data?.event === 'content-block-delta').map((e) => e.params.data.delta?.text ?? ''),
  };
}
