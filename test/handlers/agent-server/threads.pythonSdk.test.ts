// Thread search and count as LangChain's Python SDK (langgraph-sdk 0.4.3) calls them, on both
// stores: its exact requests (`threads.search(values=…, select=…)` posts `{"limit":10,
// "offset":0,…}` with its User-Agent), answered as the upstream JS server answers them —
// `values` by upstream's containment (partial objects, lists item by item), `select` keeping
// only the named fields a thread has.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';
import { BACKENDS } from '../../support/bothStores.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';

const PYTHON_SDK_HEADERS = { 'User-Agent': 'langgraph-sdk-py/0.4.3', 'Content-Type': 'application/json' };

for (const backend of BACKENDS) {
  describe(`thread search from the Python SDK (${backend})`, () => {
    let app: InProcessApp;
    /** Ran with "hi", ran with "bye", never ran. */
    const ids = { hi: '', bye: '', fresh: '' };
    /** POST with the SDK's headers and its compact JSON (orjson's bytes are JSON.stringify's). */
    const post = async (pathname: string, body: unknown) => {
      const res = await app.fetch(`${app.url}${pathname}`, {
        method: 'POST',
        headers: { ...PYTHON_SDK_HEADERS, 'x-api-key': app.key },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      return JSON.parse(text) as unknown;
    };
    const ran = async (content: string) => {
      const thread = (await post('/threads', {})) as { thread_id: string };
      await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'echo', input: { messages: [{ role: 'user', content }] } });
      return thread.thread_id;
    };

    before(async () => {
      app = await areaApp('agent-server', {
        project: testProject,
        dataDir: null,
        env: backend === 'postgres' ? { DATABASE_URL: await migratedDatabaseUrl() } : {},
      });
      ids.hi = await ran('hi');
      ids.bye = await ran('bye');
      ids.fresh = ((await post('/threads', {})) as { thread_id: string }).thread_id;
    });
    after(() => app?.close());

    it('values: a partial message in a list finds the thread whose first message it fits (and, as upstream, one never run)', async () => {
      const found = (await post('/threads/search', { limit: 10, offset: 0, values: { messages: [{ content: 'hi' }] } })) as { thread_id: string }[];
      assert.deepEqual(
        found.map((t) => t.thread_id),
        [ids.fresh, ids.hi],
      );
      // the echo's answer is the second message: positions count
      const second = (await post('/threads/search', { limit: 10, offset: 0, values: { messages: [{ content: 'hi' }, { type: 'ai' }] } })) as {
        thread_id: string;
      }[];
      assert.deepEqual(
        second.map((t) => t.thread_id),
        [ids.fresh, ids.hi],
      );
      const none = (await post('/threads/search', { limit: 10, offset: 0, values: { messages: [{ content: 'bye', type: 'ai' }] } })) as unknown[];
      assert.equal(none.length, 1, 'only the thread never run');
      assert.equal(await post('/threads/count', { values: { messages: [{ content: 'bye' }] } }), 2);
    });

    it('select: each thread with only the named fields it has; unknown names select nothing, an empty list nothing at all', async () => {
      const rows = (await post('/threads/search', { limit: 10, offset: 0, select: ['thread_id', 'status', 'context'] })) as Record<string, unknown>[];
      assert.deepEqual(rows, [
        { thread_id: ids.fresh, status: 'idle' },
        { thread_id: ids.bye, status: 'idle' },
        { thread_id: ids.hi, status: 'idle' },
      ]);
      const withValues = (await post('/threads/search', { limit: 1, offset: 2, select: ['values'] })) as { values: { messages: { content: string }[] } }[];
      assert.deepEqual(Object.keys(withValues[0]), ['values']);
      assert.deepEqual(
        withValues[0].values.messages.map((m) => m.content),
        ['hi', 'hi'],
      );
      assert.deepEqual(await post('/threads/search', { limit: 10, offset: 0, select: [] }), [{}, {}, {}]);
      assert.deepEqual(await post('/threads/search', { limit: 10, offset: 0, select: ['__proto__', 'constructor'] }), [{}, {}, {}]);
    });
  });
}
