// Retention: every checkpoint is kept by default (history, forks); `checkpointer.ttl` in the
// project file bounds it, keeping each thread's current state; a thread's own `ttl` expires
// the thread. Sweeps here run every 0.6 s (sweep_interval_minutes: 0.01).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@langchain/langgraph-sdk';
import { type InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';
import { testProject } from '../../../fixtures/agent-server/project.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const contents = (values: unknown) => ((values as { messages: { content: string }[] }).messages ?? []).map((m) => m.content);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 100; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function conversation(client: Client, graph: string): Promise<string> {
  const thread = await client.threads.create({ graphId: graph });
  for (const text of ['one', 'two', 'three']) await client.runs.wait(thread.thread_id, graph, { input: say(text) });
  return thread.thread_id;
}

describe('checkpoint retention', () => {
  describe('by default', () => {
    let server: InProcessApp;
    let client: Client;
    before(async () => {
      server = await areaApp('agent-server', { project: testProject });
      client = new Client({ apiUrl: server.url, apiKey: server.key, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
    });
    after(() => server.close());

    it('keeps every checkpoint of every run (both graph kinds)', async () => {
      for (const graph of ['echo', 'agent']) {
        const threadId = await conversation(client, graph);
        await sleep(200);
        const history = await client.threads.getHistory(threadId, { limit: 100 });
        // each run writes at least an input checkpoint and a result checkpoint
        assert.ok(history.length >= 6, `${graph}: ${history.length} checkpoints`);
      }
    });
  });

  describe('with checkpointer.ttl', () => {
    let server: InProcessApp;
    let client: Client;
    before(async () => {
      server = await areaApp('agent-server', {
        project: { ...testProject, checkpointer: { ttl: { strategy: 'delete', default_ttl: 0.005, sweep_interval_minutes: 0.01 } } },
      });
      client = new Client({ apiUrl: server.url, apiKey: server.key, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
    });
    after(() => server.close());

    for (const graph of ['echo', 'agent']) {
      it(`${graph}: old checkpoints go, the thread's current state stays whole`, async () => {
        const threadId = await conversation(client, graph);
        const before = (await client.threads.getState(threadId)).values;
        const history = await eventually(
          () => client.threads.getHistory(threadId, { limit: 100 }),
          (h) => h.length === 1,
          'the sweep',
        );
        assert.deepEqual(contents(history[0].values), contents(before));
        assert.ok(['one', 'two', 'three'].every((text) => contents(before).includes(text)));
        // the thread goes on from its latest state
        const after = await client.runs.wait(threadId, graph, { input: say('four') });
        assert.deepEqual(contents(after).slice(0, contents(before).length), contents(before));
        assert.ok(contents(after).includes('four'));
      });
    }
  });

  describe('a thread with a ttl', () => {
    let server: InProcessApp;
    let client: Client;
    before(async () => {
      server = await areaApp('agent-server', { project: { ...testProject, checkpointer: { ttl: { sweep_interval_minutes: 0.01 } } } });
      client = new Client({ apiUrl: server.url, apiKey: server.key, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
    });
    after(() => server.close());

    it('is deleted when it expires (strategy delete), or pruned to its latest state (keep_latest)', async () => {
      const keep = await client.threads.create({ graphId: 'echo' });
      for (const text of ['one', 'two']) await client.runs.wait(keep.thread_id, 'echo', { input: say(text) });
      await client.threads.update(keep.thread_id, { ttl: { ttl: 0.01, strategy: 'keep_latest' } } as never);
      const gone = await client.threads.create({ graphId: 'echo', ttl: { ttl: 0.01, strategy: 'delete' } } as never);
      const lasting = await client.threads.create({ graphId: 'echo' });

      await eventually(
        () =>
          client.threads.get(gone.thread_id).then(
            () => 200,
            (err: { status?: number }) => err.status,
          ),
        (status) => status === 404,
        'the expired thread to be deleted',
      );
      const history = await eventually(
        () => client.threads.getHistory(keep.thread_id, { limit: 100 }),
        (h) => h.length === 1,
        'keep_latest',
      );
      assert.deepEqual(contents(history[0].values), ['one', 'one', 'two', 'two']);
      assert.equal((await client.threads.get(lasting.thread_id)).thread_id, lasting.thread_id);
    });
  });
});
