// Any string names a context: a client's own conversation id (as @ag-ui/a2a sends AG-UI's
// free-string threadId as contextId) names one thread of the caller's, the same each time, and
// every answer carries the string as sent. The requests are those such a client sends over
// A2A 0.3 (message/send, message/stream) and v1.0 (SendMessage, ListTasks, GetTask).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { A2ATaskService } from '../../../src/domain/a2a/taskService.ts';
import { fixtureGraphs } from './harness.ts';
import { rpcV1, sse } from './v1harness.ts';

let app: InProcessApp;
before(async () => {
  app = await areaApp('a2a', { project: { graphs: fixtureGraphs } });
});
after(() => app.close());

const userText = (text: string, contextId: string) => ({
  message: { kind: 'message', role: 'user', messageId: randomUUID(), contextId, parts: [{ kind: 'text', text }] },
});

test('0.3: a free-string contextId is one conversation, kept as sent in the task, its history and every stream event', async () => {
  const contextId = `ag-ui thread ${randomUUID().slice(0, 8)} ✓`;
  const first = await rpcV1(`${app.url}/a2a/echo`, 'message/send', userText('one', contextId), { version: null, send: app.fetch });
  assert.equal(first.json.error, undefined, first.text);
  assert.equal(first.json.result.contextId, contextId);
  assert.ok(first.json.result.history.every((m: { contextId: string }) => m.contextId === contextId));
  assert.equal(first.json.result.status.message.contextId, contextId);
  const res = await app.fetch(`${app.url}/a2a/echo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'message/stream', params: userText('two', contextId) }),
  });
  const events = (await sse(res)).map((e) => e.result);
  assert.ok(events.length >= 3, JSON.stringify(events));
  for (const event of events) assert.equal(event.contextId, contextId, JSON.stringify(event));
  // the same thread: the second task's history holds the first exchange
  const got = await rpcV1(`${app.url}/a2a/echo`, 'tasks/get', { id: events[0].id }, { version: null, send: app.fetch });
  const history = got.json.result.history.map((m: { parts: { text: string }[] }) => m.parts[0].text);
  assert.deepEqual(history, ['one', 'echo: one', 'two', 'echo: two']);
  assert.equal(got.json.result.contextId, contextId);
});

test('1.0: SendMessage with a free-string contextId; ListTasks and GetTask take the string back', async () => {
  const contextId = 'conversation-42';
  const send = (text: string) =>
    rpcV1(`${app.url}/a2a/echo`, 'SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', contextId, parts: [{ text }] } }, { send: app.fetch });
  const a = await send('a');
  const b = await send('b');
  assert.equal(a.json.result.task.contextId, contextId, a.text);
  assert.equal(b.json.result.task.contextId, contextId);
  const listed = await rpcV1(`${app.url}/a2a/echo`, 'ListTasks', { contextId }, { send: app.fetch });
  assert.deepEqual(listed.json.result.tasks.map((t: { id: string }) => t.id).sort(), [a.json.result.task.id, b.json.result.task.id].sort());
  assert.ok(listed.json.result.tasks.every((t: { contextId: string }) => t.contextId === contextId));
  const got = await rpcV1(`${app.url}/a2a/echo`, 'GetTask', { id: b.json.result.task.id }, { send: app.fetch });
  assert.deepEqual(
    got.json.result.history.map((m: { parts: { text: string }[] }) => m.parts[0].text),
    ['a', 'echo: a', 'b', 'echo: b'],
  );
  // a task named with another context than its own is refused
  const wrong = await rpcV1(
    `${app.url}/a2a/echo`,
    'SendMessage',
    { message: { messageId: randomUUID(), role: 'ROLE_USER', contextId: 'another', taskId: b.json.result.task.id, parts: [{ text: 'x' }] } },
    { send: app.fetch },
  );
  assert.equal(wrong.json.error?.code, -32602, wrong.text);
});

test('the thread a string names is deterministic and apart per tenant and user; a UUID is the thread itself', () => {
  const service = (owner: string, user?: string) => new A2ATaskService({} as never, {} as never, owner, user);
  assert.equal(service('t1').threadOf('chat'), service('t1').threadOf('chat'));
  assert.notEqual(service('t1').threadOf('chat'), service('t2').threadOf('chat'));
  assert.notEqual(service('t1', 'alice').threadOf('chat'), service('t1', 'bob').threadOf('chat'));
  assert.match(service('t1').threadOf('chat'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const uuid = randomUUID();
  assert.equal(service('t1').threadOf(uuid), uuid);
});
