// Two servers in one process (as in the test suites, or an embedding application) share the
// project's graph modules, but each must run its graphs on its own store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { areaApp } from '../../support/area.ts';

test("a second server in the process does not take over the first one's graph checkpointer", async () => {
  // the `agent` graph: a LangGraph graph, the one kind whose checkpointer a server sets
  const first = await areaApp('agent-server', { exampleGraphs: 'all' });
  const second = await areaApp('agent-server', { exampleGraphs: 'all' });
  await second.close();
  try {
    const thread = (await (await first.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    const res = await first.api(`/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      json: { assistant_id: 'agent', input: { messages: [{ role: 'user', content: 'What is 2 + 2?' }] } },
    });
    assert.equal(res.status, 200);
    const runs = (await (await first.api(`/threads/${thread.thread_id}/runs`)).json()) as { status: string }[];
    assert.deepEqual(
      runs.map((r) => r.status),
      ['success'],
    );
    const state = (await (await first.api(`/threads/${thread.thread_id}/state`)).json()) as { values: { messages: unknown[] } };
    assert.ok(state.values.messages.length >= 2, 'the run wrote its checkpoints to the first server');
  } finally {
    await first.close();
  }
});
