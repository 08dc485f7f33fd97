// A project shaped as react-agent-js (a ReAct agent with a tool node) ends its runs in every
// stream mode whatever LangGraph.js it pins, from the oldest release agentplane serves (0.2.0)
// through 0.2.8 (react-agent-js's lockfile) and the newest 0.2 to 1.x (issue 65, point 2).
// Before, a project on 0.2.8 failed `values` and `updates` runs ("chunk is not iterable") and
// streamed nothing for `messages-tuple`. Each release is installed once into the test cache
// (test/support/pinnedLangGraph.ts) and served by `agentplane dev`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, type StreamMode } from '@langchain/langgraph-sdk';
import { ROOT } from '../../../support/server.ts';
import { startDev, type DevProcess } from '../../../support/devProcess.ts';
import { pinnedProject, type PinnedProject } from '../../../support/pinnedLangGraph.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/react-agent');

const RELEASES = [
  { langgraph: '0.2.0', with: ['@langchain/core@0.2.36'] },
  { langgraph: '0.2.8', with: ['@langchain/core@0.3.3'] },
  // the pins of test/domain/agent/graphs/olderLangGraph.versions.e2e.test.ts: one cached install for both
  { langgraph: '0.2.74', with: ['@langchain/core@0.3.80', 'zod-to-json-schema@3.24.6'] },
  { langgraph: '1.7.3', with: ['@langchain/core@1.4.0', 'zod@4.6.7'] },
];

interface Served {
  project: PinnedProject;
  dev: DevProcess;
  client: Client;
}

async function serve(release: (typeof RELEASES)[number]): Promise<Served> {
  const project = await pinnedProject([`@langchain/langgraph@${release.langgraph}`, ...release.with], FIXTURE);
  if (project.installMs) console.log(`# installed ${release.langgraph} in ${(project.installMs / 1000).toFixed(1)} s`);
  const dev = await startDev(project.dir);
  const apiKey = /API key \(created on first start\): (\S+)/.exec(dev.output())?.[1];
  return { project, dev, client: new Client({ apiUrl: dev.url, apiKey, callerOptions: { maxRetries: 0 } }) };
}

interface Streamed {
  events: { event: string; data: any }[];
  statuses: string[];
}

/** One run streamed in `modes` on a fresh thread, and the statuses of the thread's runs after it. */
async function streamRun(client: Client, modes: StreamMode[]): Promise<Streamed> {
  const thread = await client.threads.create();
  const events: Streamed['events'] = [];
  for await (const chunk of client.runs.stream(thread.thread_id, 'agent', {
    input: { messages: [{ role: 'user', content: 'weather in Paris' }] },
    streamMode: modes,
  }))
    events.push(chunk);
  return { events, statuses: (await client.runs.list(thread.thread_id)).map((r) => r.status) };
}

const of = (streamed: Streamed, event: string) => streamed.events.filter((e) => e.event === event).map((e) => e.data);
const CONVERSATION = ['human:weather in Paris', 'ai:', 'tool:sunny in Paris', 'ai:The weather: sunny in Paris.'];
const said = (messages: { type: string; content: unknown }[]) =>
  messages.map((m) => `${m.type.replace('Chunk', '').replace('AIMessage', 'ai')}:${String(m.content)}`);

/** What each mode alone streams of the run: the same on every release. */
function assertValues(streamed: Streamed): void {
  const values = of(streamed, 'values');
  assert.equal(values.length, 4, JSON.stringify(streamed.events).slice(0, 2000));
  assert.deepEqual(said(values.at(-1).messages), CONVERSATION);
}
function assertUpdates(streamed: Streamed): void {
  assert.deepEqual(
    of(streamed, 'updates').map((u) => Object.keys(u)),
    [['callModel'], ['tools'], ['callModel']],
  );
}
function assertMessages(streamed: Streamed): void {
  const tuples = of(streamed, 'messages') as [{ type: string; content: unknown; id: string }, { langgraph_node: string }][];
  assert.ok(tuples.length >= 3, JSON.stringify(streamed.events).slice(0, 2000));
  // chunks of one message share its id: the whole messages, in order, with the node that made each
  const whole = new Map<string, { type: string; content: string; node: string }>();
  for (const [message, metadata] of tuples) {
    const seen = whole.get(message.id);
    whole.set(message.id, { type: message.type, content: (seen?.content ?? '') + String(message.content), node: metadata.langgraph_node });
  }
  assert.deepEqual(
    [...whole.values()].map((m) => `${m.node}/${said([m])[0]}`),
    ['callModel/ai:', 'tools/tool:sunny in Paris', 'callModel/ai:The weather: sunny in Paris.'],
  );
}
function assertEvents(streamed: Streamed): void {
  const names = of(streamed, 'events').map((e) => e.event as string);
  assert.equal(names.filter((n) => n === 'on_chat_model_end').length, 2, names.join(' '));
  assert.equal(names.filter((n) => n === 'on_tool_end').length, 1, names.join(' '));
}

const served = new Map<string, Promise<Served>>();
before(() => {
  // one install at a time (each is npm on a shared machine), the servers side by side
  let chain: Promise<unknown> = Promise.resolve();
  for (const release of RELEASES) {
    const started = chain.then(() => serve(release));
    served.set(release.langgraph, started);
    chain = started.catch(() => undefined);
  }
});
after(async () => {
  const started = (await Promise.allSettled(served.values())).flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  // every server has exited before any project folder goes (devProcess.ts: stop)
  await Promise.all(started.map(({ dev }) => dev.stop()));
  for (const { project } of started) project.remove();
});

for (const release of RELEASES) {
  describe(`react-agent-js shaped, on @langchain/langgraph ${release.langgraph}`, { timeout: 600_000 }, () => {
    let client: Client;
    let dev: DevProcess;
    before(async () => ({ client, dev } = await served.get(release.langgraph)!));

    it('streams values: every step, ending success', async () => {
      const streamed = await streamRun(client, ['values']);
      assertValues(streamed);
      assert.deepEqual(streamed.statuses, ['success'], dev.output().slice(-3000));
    });

    it('streams updates: one per node, ending success', async () => {
      const streamed = await streamRun(client, ['updates']);
      assertUpdates(streamed);
      assert.deepEqual(streamed.statuses, ['success']);
    });

    it('streams messages-tuple: the model’s messages and the tool’s, ending success', async () => {
      const streamed = await streamRun(client, ['messages-tuple']);
      assertMessages(streamed);
      assert.deepEqual(streamed.statuses, ['success']);
    });

    it('streams events: the model and tool calls, ending success', async () => {
      const streamed = await streamRun(client, ['events']);
      assertEvents(streamed);
      assert.deepEqual(streamed.statuses, ['success']);
    });

    it('streams all four modes at once, each as alone, ending success', async () => {
      const streamed = await streamRun(client, ['values', 'updates', 'messages-tuple', 'events']);
      assertValues(streamed);
      assertUpdates(streamed);
      assertMessages(streamed);
      assertEvents(streamed);
      assert.ok(!streamed.events.some((e) => e.event === 'error'), JSON.stringify(streamed.events.filter((e) => e.event === 'error')));
      assert.deepEqual(streamed.statuses, ['success']);
    });
  });
}
