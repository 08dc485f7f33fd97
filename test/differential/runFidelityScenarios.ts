// How a graph is run (issue 65, point 1 and the smaller differences clients see): what the
// model is called with shows in the messages a thread keeps, what the server tells the
// graph shows in the run's metadata, and where a run stops or fails shows in the thread and
// in the answers of runs/wait and protocol v2. Each compared whole.
import { randomUUID } from 'node:crypto';
import { collect, type Side } from './harness.ts';
import type { Scenario } from './scenarios.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const system = async (side: Side, graphId: string) =>
  (await side.client().assistants.search({ graphId, metadata: { created_by: 'system' }, limit: 1 }))[0].assistant_id;

export const runFidelityScenarios: Scenario[] = [
  {
    name: 'stored messages of a streamed model',
    covers:
      'a ReAct agent storing its model reply as given: the thread state after runs in values, updates and messages-tuple modes (upstream streams every model call)',
    async run(side) {
      const client = side.client();
      const assistant = await system(side, 'react');
      const out: Record<string, unknown> = {};
      for (const mode of ['values', 'updates', 'messages-tuple'] as const) {
        const thread = await client.threads.create();
        await collect(client.runs.stream(thread.thread_id, assistant, { input: say('weather in Lisbon?'), streamMode: [mode] }));
        out[mode] = (await client.threads.getState(thread.thread_id)).values;
      }
      return out;
    },
  },
  {
    name: 'run metadata',
    covers: 'the metadata a run gives its graph: every checkpoint of the run carries it (langgraph_version, run_attempt, host, ids)',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, await system(side, 'react'), { input: say('weather?'), metadata: { given: 'yes' } });
      const history = await client.threads.getHistory(thread.thread_id);
      return { metadata: history.map((h) => h.metadata) };
    },
  },
  {
    name: 'interrupt_before stop',
    covers: 'a run stopped by interrupt_before: the thread (status, interrupts), its state and the run answer',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const answer = await client.runs.wait(thread.thread_id, await system(side, 'react'), { input: say('weather?'), interruptBefore: ['tools'] });
      const got = await client.threads.get(thread.thread_id);
      const state = await client.threads.getState(thread.thread_id);
      return { answer: Object.keys(answer as object), status: got.status, interrupts: got.interrupts, next: state.next, tasks: state.tasks };
    },
  },
  {
    name: 'runs list order',
    covers: 'runs.list of a thread with three runs',
    async run(side) {
      const client = side.client();
      const thread = await client.threads.create();
      const chat = await system(side, 'chat');
      const made: string[] = [];
      for (const word of ['one', 'two', 'three']) {
        const run = await client.runs.create(thread.thread_id, chat, { input: say(word), multitaskStrategy: 'enqueue' });
        await client.runs.join(thread.thread_id, run.run_id);
        made.push(run.run_id);
      }
      const listed = await client.runs.list(thread.thread_id);
      return { order: listed.map((r) => made.indexOf(r.run_id)) };
    },
  },
  {
    name: 'failed run answers',
    covers: "a failing graph's error: runs/wait's __error__ and protocol v2's failed lifecycle event",
    async run(side) {
      const assistant = await system(side, 'broken');
      const thread = await side.client().threads.create();
      const waited = await side.http('POST', `/threads/${thread.thread_id}/runs/wait`, { body: { assistant_id: assistant, input: say('fail') } });
      const threadId = randomUUID();
      await side.http('POST', `/threads/${threadId}/commands`, {
        body: { id: 1, method: 'run.start', params: { assistant_id: 'broken', input: say('fail') } },
      });
      const stream = await side.openStream(`/threads/${threadId}/stream/events`, { channels: ['lifecycle'], since: 0 }, (e) => {
        const data = e.data as { params?: { namespace?: string[]; data?: { event?: string } } };
        return data?.params?.namespace?.length === 0 && ['completed', 'failed', 'interrupted'].includes(String(data.params.data?.event));
      });
      const failed = stream.events
        .map((e) => (e.data as { params?: { data?: unknown } })?.params?.data)
        .filter((d) => (d as { event?: string })?.event === 'failed');
      return { waited, failed };
    },
  },
  {
    name: 'error name of a failed run',
    covers:
      "issue 90, point 2: a graph throws an error whose class sets no name (as LangChain's OutputParserException): the stream's error event and runs/wait's __error__",
    async run(side) {
      const client = side.client();
      const assistant = await system(side, 'broken_unnamed');
      const thread = await client.threads.create();
      const streamed = await side.sse('POST', `/threads/${thread.thread_id}/runs/stream`, { assistant_id: assistant, input: say('fail') });
      const waited = await side.http('POST', `/threads/${(await client.threads.create()).thread_id}/runs/wait`, {
        body: { assistant_id: assistant, input: say('fail') },
      });
      return {
        streamed: streamed.events.filter((e) => e.event === 'error'),
        waitedName: (waited.body as { __error__?: { error?: unknown } })?.__error__?.error,
      };
    },
  },
  {
    name: 'checkpoints and debug streams of a thread run',
    covers:
      'issue 90, point 3: stream modes checkpoints and debug of runs on threads (which keep checkpoints), the first checkpoint without a parent; a checkpoints event as its keys and the three upstream sends',
    async run(side) {
      const client = side.client();
      const assistant = await system(side, 'chat');
      const streamed = async (mode: string) =>
        side.sse('POST', `/threads/${(await client.threads.create()).thread_id}/runs/stream`, {
          assistant_id: assistant,
          input: say(mode),
          stream_mode: [mode],
        });
      // the keys apart: ids are numbered in the order they appear, and extra keys would renumber the rest
      const checkpoints = (await streamed('checkpoints')).events.map((e) => {
        if (e.event !== 'checkpoints') return e;
        const { values, metadata, next, ...rest } = e.data as Record<string, unknown>;
        return { event: e.event, values, metadata, next, otherKeys: Object.keys(rest).sort() };
      });
      return { checkpoints, debug: await streamed('debug') };
    },
  },
];
