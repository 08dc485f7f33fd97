// A2A over a compiled LangGraph.js graph (the shipped `agent` example: agent → tools →
// agent), with the project's own configuration: the default card names the default assistant.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { A2AClient } from '@a2a-js/sdk/client';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { assertValidResult, clientFor, userText } from './harness.ts';

let server: InProcessApp;

before(async () => {
  const graph = (name: string) => `${path.join(ROOT, 'examples/graphs', `${name}.ts`)}:${name}`;
  server = await areaApp('a2a', { project: { graphs: { echo: graph('echo'), agent: graph('agent') }, a2a: { default_assistant: 'agent' } }, dataDir: null });
});
after(() => server.close());

test('a multi-step LangGraph agent answers through send and stream; the tool chatter stays out of the reply', async () => {
  const client = await A2AClient.fromCardUrl(`${server.url}/.well-known/agent-card.json`, { fetchImpl: server.fetch });
  const sent: any = await client.sendMessage(userText('what is 6 * 7?'));
  assertValidResult('message/send', sent.result);
  assert.equal(sent.result.status.state, 'completed');
  assert.deepEqual(sent.result.artifacts[0].parts, [{ kind: 'text', text: 'The answer is 42.' }]);

  const events: any[] = [];
  for await (const event of client.sendMessageStream(userText('and 2 + 3?', { contextId: sent.result.contextId, taskId: sent.result.id }))) {
    assertValidResult('message/stream', event);
    events.push(event);
  }
  assert.equal(events[0].id, sent.result.id);
  assert.equal(events.find((e) => e.kind === 'artifact-update').artifact.parts[0].text, 'The answer is 5.');
  assert.deepEqual([events.at(-1).status.state, events.at(-1).final], ['completed', true]);

  const got: any = await client.getTask({ id: sent.result.id });
  assertValidResult('tasks/get', got.result);
  assert.deepEqual(
    got.result.history.filter((m: any) => m.role === 'user').map((m: any) => m.parts[0].text),
    ['what is 6 * 7?', 'and 2 + 3?'],
  );
});

test('the echo example answers on its own endpoint', async () => {
  const client = await clientFor(server.url, 'echo', server.fetch);
  const sent: any = await client.sendMessage(userText('hi there'));
  assertValidResult('message/send', sent.result);
  assert.equal(sent.result.status.state, 'completed');
  assert.ok(sent.result.artifacts[0].parts[0].text.length > 0);
});
