// An idle server's release reaches the embedded store through the server (cli/main.ts hands
// `releaseUnused` to the idle collector, runtime/idle/idleCollector.ts; issue 86): a thread read
// and cached is dropped from the cache, and reads back the same from disk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/server.ts';

test("the server's releaseUnused drops the embedded store's cached values that nothing has used since", async () => {
  const server = await startTestServer();
  try {
    const created = await server.api('/threads', { method: 'POST', json: { metadata: { note: 'x'.repeat(10_000) } } });
    assert.equal(created.status, 200);
    const { thread_id } = (await created.json()) as { thread_id: string };
    const read = await (await server.api(`/threads/${thread_id}`)).json();
    assert.equal(server.releaseUnused(60_000), 0, 'read just now: kept');
    const cut = performance.now();
    while (performance.now() <= cut);
    assert.ok(server.releaseUnused(0) > 0, 'the thread read is dropped from the cache');
    assert.equal(server.releaseUnused(0), 0, 'nothing left to drop');
    assert.deepEqual(await (await server.api(`/threads/${thread_id}`)).json(), read, 'read back from disk the same');
  } finally {
    await server.close();
  }
});
