// Found by the generated campaign (campaign.ts, issue 84): a message whose content is neither
// text nor a list of blocks (`{"content": false}` to the plain `echo` graph, which keeps what it
// is given) made the run's join, the thread's state and its history answer 500: the replies'
// schema allowed a message only a string or an array there; so did a message type other than
// LangChain's four (`{"type": "note"}`), and a message without content (a command's update
// `{"messages": [{"type": "human"}]}` on the agent graph). A graph's state is its own, and is
// returned as it is; on both stores.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { BACKENDS } from '../../support/bothStores.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';

for (const backend of BACKENDS) {
  describe(`a message content that is neither text nor blocks (${backend})`, () => {
    let app: InProcessApp;
    before(async () => {
      app = await areaApp('agent-server', {
        dataDir: null,
        exampleGraphs: 'all',
        env: backend === 'postgres' ? { DATABASE_URL: await migratedDatabaseUrl() } : {},
      });
    });
    after(() => app?.close());

    test('reads back as it was sent: join, state, history and search answer 200', async () => {
      const thread = ((await (await app.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string }).thread_id;
      for (const content of [false, 42, { odd: true }]) {
        const created = await app.api(`/threads/${thread}/runs`, { method: 'POST', json: { assistant_id: 'echo', input: { messages: [{ content }] } } });
        const run = (await created.json()) as { run_id: string };
        const joined = await app.api(`/threads/${thread}/runs/${run.run_id}/join`);
        assert.equal(joined.status, 200, await joined.clone().text());
        const messages = ((await joined.json()) as { messages: { content: unknown }[] }).messages;
        assert.deepEqual(messages.at(-2)?.content, content);
      }
      // a type LangChain does not have, kept as it was given (the reply's schema allowed four)
      const typed = await app.api(`/threads/${thread}/runs/wait`, {
        method: 'POST',
        json: { assistant_id: 'echo', input: { messages: [{ type: 'note', content: 'x' }] } },
      });
      assert.equal(typed.status, 200, await typed.clone().text());
      assert.ok(((await typed.json()) as { messages: { type: string }[] }).messages.some((m) => m.type === 'note'));
      // a message without content, through a command's update on the agent graph (the schema required content)
      const bare = await app.api(`/threads/${thread}/runs/wait`, {
        method: 'POST',
        json: { assistant_id: 'agent', command: { update: { messages: [{ type: 'human' }] } } },
      });
      assert.equal(bare.status, 200, await bare.clone().text());
      for (const [method, path, json] of [
        ['GET', `/threads/${thread}/state`],
        ['POST', `/threads/${thread}/history`, {}],
        ['GET', `/threads/${thread}`],
        ['POST', '/threads/search', {}],
      ] as const) {
        const res = await app.api(path, { method, json });
        assert.equal(res.status, 200, `${method} ${path}: ${await res.text()}`);
      }
    });
  });
}
