// A project runs under `agentplane dev` unchanged whatever LangGraph.js release it pins from
// 0.2 on (issue 52, point 9): many public templates still pin 0.2, whose loop reads a field
// of the checkpoint (`pending_sends`) that later releases dropped. One project pinned to the
// newest 0.2 and one to the newest 1.x: runs, interrupt and resume, history and streams all
// end `success`, and /info names the project's LangGraph, not agentplane's.
// End to end (npm run test:e2e), as its sibling olderLangGraph.reactAgent.e2e.test.ts: it drives
// two `agentplane dev` processes, ~20 CPU-s that npm test's files need not pay.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT } from '../../../support/server.ts';
import { startDev, type DevProcess } from '../../../support/devProcess.ts';
import { pinnedProject, type PinnedProject } from '../../../support/pinnedLangGraph.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/pinned-langgraph');
const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const texts = (values: unknown) => ((values as { messages: { content: unknown }[] }).messages ?? []).map((m) => m.content);

const RELEASES = [
  // the newest 0.2 (its peers: @langchain/core 0.3, zod-to-json-schema)
  { langgraph: '0.2.74', with: ['@langchain/core@0.3.80', 'zod-to-json-schema@3.24.6'] },
  { langgraph: '1.7.3', with: ['@langchain/core@1.4.0', 'zod@4.6.7'] },
];

interface Served {
  project: PinnedProject;
  dev: DevProcess;
  client: Client;
  apiKey?: string;
}

/** The project installed (unless cached) and served; both releases side by side, each start takes seconds. */
async function serve(release: (typeof RELEASES)[number]): Promise<Served> {
  const project = await pinnedProject([`@langchain/langgraph@${release.langgraph}`, ...release.with], FIXTURE);
  if (project.installMs) console.log(`# installed ${release.langgraph} in ${(project.installMs / 1000).toFixed(1)} s`);
  const dev = await startDev(project.dir);
  const apiKey = /API key \(created on first start\): (\S+)/.exec(dev.output())?.[1];
  return { project, dev, apiKey, client: new Client({ apiUrl: dev.url, apiKey, callerOptions: { maxRetries: 0 } }) };
}

const served = new Map<string, Promise<Served>>();
before(() => {
  for (const release of RELEASES) served.set(release.langgraph, serve(release));
});
after(async () => {
  const started = (await Promise.allSettled(served.values())).flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  // every server has exited before any project folder goes (devProcess.ts: stop)
  await Promise.all(started.map(({ dev }) => dev.stop()));
  for (const { project } of started) project.remove();
});

for (const release of RELEASES) {
  describe(`a project pinned to @langchain/langgraph ${release.langgraph} under agentplane dev`, { timeout: 300_000 }, () => {
    let dev: DevProcess;
    let client: Client;
    let apiKey: string | undefined;
    before(async () => ({ dev, client, apiKey } = await served.get(release.langgraph)!));

    it('a run ends success with the graph’s answer', async () => {
      const thread = await client.threads.create();
      const values = await client.runs.wait(thread.thread_id, 'chat', { input: say('hi') });
      assert.deepEqual(texts(values), ['hi', 'echo: hi']);
      assert.deepEqual(
        (await client.runs.list(thread.thread_id)).map((r) => r.status),
        ['success'],
        dev.output().slice(-3000),
      );
    });

    it('interrupt and resume, then the history of every step', async () => {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, 'approval', { input: say('ship it?') });
      assert.equal((await client.threads.get(thread.thread_id)).status, 'interrupted');
      const values = await client.runs.wait(thread.thread_id, 'approval', { command: { resume: 'yes' } });
      assert.deepEqual(texts(values), ['ship it?', 'decision: yes']);
      assert.deepEqual(
        (await client.runs.list(thread.thread_id)).map((r) => r.status),
        ['success', 'success'],
      );
      const history = await client.threads.getHistory(thread.thread_id);
      assert.deepEqual(
        history.map((state) => state.next),
        [[], ['report'], ['ask'], ['__start__']],
      );
    });

    it('a stream of values, messages and updates ends with the run a success', async () => {
      const thread = await client.threads.create();
      const events: string[] = [];
      for await (const chunk of client.runs.stream(thread.thread_id, 'chat', { input: say('again'), streamMode: ['values', 'messages-tuple', 'updates'] }))
        events.push(chunk.event);
      assert.ok(events.includes('values') && events.includes('updates') && events.includes('messages'), events.join(' '));
      assert.ok(!events.includes('error'), events.join(' '));
      assert.deepEqual(
        (await client.runs.list(thread.thread_id)).map((r) => r.status),
        ['success'],
      );
    });

    it('/info names the project’s LangGraph release', async () => {
      const info = (await (await fetch(`${dev.url}/info`, { headers: apiKey ? { 'x-api-key': apiKey } : {} })).json()) as { langgraph_js_version: string };
      assert.equal(info.langgraph_js_version, release.langgraph);
    });
  });
}
