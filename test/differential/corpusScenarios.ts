// The differential corpus (issue 65, point 3): the shapes of project users run — a ReAct agent
// over initChatModel (OpenAI and Anthropic clients), createAgent with human-in-the-loop
// middleware, a deep agent with a subagent and a store backend, an email assistant that stops
// inside a subgraph, and (issue 90) a memory agent over `config.store` whose model each run
// chooses, a data-enrichment agent with a declared input, a forced tool and structured output
// (test/fixtures/corpus-project) — against the fake model server
// (test/support/fakeModelServer.ts), whose replies the user's text scripts (`call <tool> {args}`).
// What a client sees is compared whole: stream events in four modes with subgraphs, interrupts
// and resumes, state and history, the store, protocol v2.
import { randomUUID } from 'node:crypto';
import { collect, type Side } from './harness.ts';
import type { Scenario } from './scenarios.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const FOUR_MODES = ['values', 'updates', 'messages-tuple', 'events'] as ('values' | 'updates' | 'messages-tuple' | 'events')[];

/** The thread after a run: its state (with subgraphs) and every checkpoint's step, source, next and writes. */
async function threadView(side: Side, threadId: string) {
  const client = side.client();
  const state = await client.threads.getState(threadId, undefined, { subgraphs: true });
  const history = await client.threads.getHistory(threadId, { limit: 50 });
  const thread = await client.threads.get(threadId);
  return {
    status: thread.status,
    interrupts: thread.interrupts,
    state,
    history: history.map((h) => ({ next: h.next, metadata: h.metadata, tasks: h.tasks })),
  };
}

/** A ReAct run in the four modes with subgraphs, and the thread it leaves. */
const reactOver = (graphId: string): Scenario => ({
  name: `corpus: react agent over ${graphId.replace('react_', '')}`,
  covers: `${graphId}: initChatModel's client streamed in values, updates, messages-tuple and events with subgraphs; the state and history it leaves`,
  async run(side) {
    const client = side.client();
    const thread = await client.threads.create();
    const chunks = await collect(
      client.runs.stream(thread.thread_id, graphId, { input: say('call weather {"city":"Lisbon"}'), streamMode: FOUR_MODES, streamSubgraphs: true }),
    );
    return { chunks, thread: await threadView(side, thread.thread_id) };
  },
});

export const corpusScenarios: Scenario[] = [
  reactOver('react_openai'),
  reactOver('react_anthropic'),
  {
    name: 'corpus: createAgent with human-in-the-loop middleware',
    covers: 'hitl: the run stops for a decision on send_email (values and updates streamed), the thread interrupted, resumed with an approval',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const asked = await collect(
        client.runs.stream(thread.thread_id, 'hitl', {
          input: say('call send_email {"to":"ana@example.com","subject":"hello","body":"hi Ana"}'),
          streamMode: ['values', 'updates'],
        }),
      );
      const stopped = await threadView(side, thread.thread_id);
      const resumed = await collect(
        client.runs.stream(thread.thread_id, 'hitl', {
          command: { resume: { decisions: [{ type: 'approve' }] } },
          streamMode: ['values', 'updates', 'messages-tuple'],
        }),
      );
      return { asked, stopped, resumed, after: await threadView(side, thread.thread_id) };
    },
  },
  {
    name: 'corpus: deep agent with a subagent and a store backend',
    covers:
      'deep: the task tool hands work to the researcher subagent (streamed with subgraphs), a file written to the store backend, read back through /store',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const task = JSON.stringify({ description: 'call weather {"city":"Porto"}', subagent_type: 'researcher' });
      const file = JSON.stringify({ file_path: '/notes.md', content: 'Porto is sunny' });
      const chunks = await collect(
        client.runs.stream(thread.thread_id, 'deep', {
          input: say(`call task ${task}; call write_file ${file}`),
          streamMode: ['updates', 'messages-tuple'],
          streamSubgraphs: true,
        }),
      );
      const files = await client.store.searchItems(['corpus', 'files']);
      return { chunks, thread: await threadView(side, thread.thread_id), files: files.items.map(({ namespace, key, value }) => ({ namespace, key, value })) };
    },
  },
  {
    name: 'corpus: email assistant with an interrupt in a subgraph',
    covers:
      'email: the respond subgraph drafts with ChatAnthropic and stops for review inside the subgraph (streamed with subgraphs), its state with subgraphs, resumed inside the subgraph with an edit (streamed with subgraphs)',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const asked = await collect(
        client.runs.stream(thread.thread_id, 'email', {
          input: { email: 'Can we meet on Friday?', messages: [] },
          streamMode: ['values', 'updates', 'messages-tuple'],
          streamSubgraphs: true,
        }),
      );
      const stopped = await threadView(side, thread.thread_id);
      const resumed = await collect(
        client.runs.stream(thread.thread_id, 'email', {
          command: { resume: { approved: true, edited: 'Friday works.' } },
          streamMode: ['values', 'updates'],
          streamSubgraphs: true,
        }),
      );
      return { asked, stopped, resumed, after: await threadView(side, thread.thread_id) };
    },
  },
  {
    name: 'corpus: protocol v2 run of a react agent',
    covers: 'react_openai over protocol v2: run.start on a new thread, every channel from since 0 until the run completes',
    async run(side) {
      const threadId = randomUUID();
      const started = await side.http('POST', `/threads/${threadId}/commands`, {
        body: { id: 1, method: 'run.start', params: { assistant_id: 'react_openai', input: say('call weather {"city":"Faro"}') } },
      });
      const stream = await side.openStream(
        `/threads/${threadId}/stream/events`,
        { channels: ['lifecycle', 'values', 'updates', 'messages', 'tools', 'custom', 'tasks', 'checkpoints', 'input'], since: 0 },
        (e) => {
          const data = e.data as { method?: string; params?: { namespace?: string[]; data?: { event?: string } } };
          return data?.method === 'lifecycle' && data.params?.namespace?.length === 0 && ['completed', 'failed'].includes(String(data.params.data?.event));
        },
      );
      // the wall-clock timestamp is a number on both
      const events = stream.events.map((e) => {
        const { params, ...rest } = e.data as { params?: Record<string, unknown> };
        const { timestamp, ...kept } = params ?? {};
        return { event: e.event, ...rest, params: { ...kept, timestamp: typeof timestamp } };
      });
      return { started: started.status, timedOut: stream.timedOut, events };
    },
  },
  {
    name: 'corpus: memory agent over config.store with a model chosen per run',
    covers:
      'memory: a run with configurable model openai:… stores a memory through config.store (upsert_memory tool, streamed in values and updates), a run on another thread with anthropic:… reads it; the store and both threads',
    async run(side) {
      const client = side.client();
      const first = await client.threads.create();
      const stored = await collect(
        client.runs.stream(first.thread_id, 'memory', {
          input: say('call upsert_memory {"content":"likes green tea","context":"said so at lunch"}'),
          config: { configurable: { userId: 'ana', model: 'openai:gpt-4o-mini' } },
          streamMode: ['values', 'updates'],
        }),
      );
      const second = await client.threads.create();
      const answered = await client.runs.wait(second.thread_id, 'memory', {
        input: say('what do I like?'),
        config: { configurable: { userId: 'ana', model: 'anthropic:claude-3-5-haiku-latest' } },
      });
      const memories = await client.store.searchItems(['memories', 'ana']);
      // the shape is exercised only if the model's tool call reached the store
      if (memories.items.length !== 1) throw new Error(`expected one memory, found ${JSON.stringify(memories.items)}`);
      return {
        stored,
        answered,
        memories: memories.items.map(({ namespace, key, value }) => ({ namespace, key, value })),
        first: await threadView(side, first.thread_id),
        second: await threadView(side, second.thread_id),
      };
    },
  },
  {
    name: 'corpus: data enrichment with a declared input, a forced tool and structured output',
    covers:
      'enrich: `new StateGraph({ stateSchema, input }, Config)` — its schemas (the input without the internal messages and loopStep, a Record<string, any> channel); a run whose model must call a tool (search, then Info) and whose reflection answers through withStructuredOutput, streamed in values and updates; the thread',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const chunks = await collect(
        client.runs.stream(thread.thread_id, 'enrich', {
          input: { topic: 'Acme: call search {"query":"Acme founding"}; call Info {"founded":"1998"}', extractionSchema: { founded: 'string' } },
          config: { configurable: { model: 'openai:gpt-4o-mini' } },
          streamMode: ['values', 'updates'],
        }),
      );
      const view = await threadView(side, thread.thread_id);
      // the shape is exercised only if the forced tool handed the answer in and the reflection parsed
      const values = view.state.values as { info?: { founded?: string }; messages?: { content?: unknown }[] };
      if (values.info?.founded !== '1998' || !String(values.messages?.at(-1)?.content).startsWith('reflection: satisfactory'))
        throw new Error(`the run did not enrich: ${JSON.stringify(values)}`);
      return { schemas: await client.assistants.getSchemas('enrich'), chunks, thread: view };
    },
  },
];
