// Tasks outlive their connections and the server process: a dropped stream can be picked up
// with tasks/resubscribe, and tasks/get still knows a task after a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { assertValidResult, clientFor, fixtureGraphs, userText } from '../../handlers/a2a/harness.ts';

test('a dropped stream leaves the task running; resubscribe follows it to its end', async () => {
  const server = await areaApp('a2a', { project: { graphs: fixtureGraphs }, dataDir: null });
  try {
    const abort = new AbortController();
    const res = await server.fetch(`${server.url}/a2a/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: userText('hold on') }),
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    const task = JSON.parse(
      text
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6),
    ).result;
    abort.abort();

    const client = await clientFor(server.url, 'slow', server.fetch);
    const got: any = await client.getTask({ id: task.id });
    assert.ok(['submitted', 'working'].includes(got.result.status.state), got.result.status.state);
    const events: any[] = [];
    for await (const event of client.resubscribeTask({ id: task.id })) {
      assertValidResult('tasks/resubscribe', event);
      events.push(event);
      if (events.length === 1) await client.cancelTask({ id: task.id });
    }
    assert.deepEqual([events.at(-1).status.state, events.at(-1).final], ['canceled', true]);
  } finally {
    await server.close();
  }
});

test('tasks/get and follow-ups work after a restart', async () => {
  const dataDir = tempDir();
  const first = await areaApp('a2a', { project: { graphs: fixtureGraphs }, dataDir });
  let task: any;
  try {
    task = ((await (await clientFor(first.url, 'echo', first.fetch)).sendMessage(userText('before restart'))) as any).result;
  } finally {
    await first.close();
  }
  const second = await areaApp('a2a', { project: { graphs: fixtureGraphs }, dataDir });
  try {
    const client = await clientFor(second.url, 'echo', second.fetch);
    const got: any = await client.getTask({ id: task.id });
    assertValidResult('tasks/get', got.result);
    assert.equal(got.result.status.state, 'completed');
    assert.equal(got.result.artifacts[0].parts[0].text, 'echo: before restart');
    const next: any = await client.sendMessage(userText('after restart', { taskId: task.id }));
    assert.equal(next.result.id, task.id);
    assert.equal(next.result.contextId, task.contextId);
    assert.equal(next.result.history.length, 4);
  } finally {
    await second.close();
  }
});
