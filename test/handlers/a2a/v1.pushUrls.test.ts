// A push config's URL is held to its delivery's address rules when it is set: one naming a
// private, link-local (cloud metadata) or loopback address is refused then, as invalid params
// (-32602 on JSON-RPC, 400 INVALID_ARGUMENT on HTTP+JSON), rather than accepted and refused at
// each delivery with only the server log knowing. A range the operator opens
// (webhooks.url.allowed_networks) is accepted; a name is left to the delivery's DNS.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { fixtureGraphs } from './harness.ts';
import { rpcV1 } from './v1harness.ts';

let app: InProcessApp;
before(async () => {
  app = await areaApp('a2a', { project: { graphs: fixtureGraphs, webhooks: { url: { allowed_networks: ['10.9.0.0/16'] } } } });
});
after(() => app.close());

const REFUSED = [
  'http://169.254.169.254/latest/meta-data/',
  'http://10.1.2.3/hook',
  'http://192.168.1.10:8080/hook',
  'http://127.0.0.1/hook',
  'http://0x7f.1/hook',
  'http://2130706433/hook',
  'http://[::ffff:169.254.169.254]/hook',
  'http://[::1]/hook',
  'http://[fd00::1]/hook',
  'http://localhost:9000/hook',
];

async function aTask(): Promise<string> {
  const sent = await rpcV1(
    `${app.url}/a2a/echo`,
    'SendMessage',
    { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }] } },
    { send: app.fetch },
  );
  return sent.json.result.task.id;
}

test('JSON-RPC: a URL naming a non-public address is -32602 naming the field and the address; nothing is stored', async () => {
  const taskId = await aTask();
  for (const url of REFUSED) {
    const res = await rpcV1(`${app.url}/a2a/echo`, 'CreateTaskPushNotificationConfig', { taskId, url }, { send: app.fetch });
    assert.equal(res.json.error?.code, -32602, `${url}: ${res.text}`);
    assert.match(res.json.error.message, /not public|loopback/, url);
    const badRequest = res.json.error.data.find((d: { '@type': string }) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
    assert.equal(badRequest?.fieldViolations?.[0]?.field, 'url', url);
  }
  const listed = await rpcV1(`${app.url}/a2a/echo`, 'ListTaskPushNotificationConfigs', { taskId }, { send: app.fetch });
  assert.deepEqual(listed.json.result.configs ?? [], []);
});

test('a config given with the message is refused the same way, and starts nothing', async () => {
  const contextId = randomUUID();
  const res = await rpcV1(
    `${app.url}/a2a/echo`,
    'SendMessage',
    {
      message: { messageId: randomUUID(), role: 'ROLE_USER', contextId, parts: [{ text: 'x' }] },
      configuration: { taskPushNotificationConfig: { url: 'http://169.254.169.254/' } },
    },
    { send: app.fetch },
  );
  assert.equal(res.json.error?.code, -32602, res.text);
  const listed = await rpcV1(`${app.url}/a2a/echo`, 'ListTasks', { contextId }, { send: app.fetch });
  assert.deepEqual(listed.json.result.tasks, []);
});

test('HTTP+JSON: 400 INVALID_ARGUMENT', async () => {
  const taskId = await aTask();
  const res = await app.fetch(`${app.url}/a2a/echo/v1/tasks/${taskId}/pushNotificationConfigs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ taskId, url: 'http://10.0.0.1/hook' }),
  });
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as { error: { status: string } }).error.status, 'INVALID_ARGUMENT');
});

test('a range the operator opens, and a name, are accepted', async () => {
  const taskId = await aTask();
  for (const url of ['http://10.9.1.1/hook', 'https://hooks.example.com/a2a']) {
    const res = await rpcV1(`${app.url}/a2a/echo`, 'CreateTaskPushNotificationConfig', { taskId, url }, { send: app.fetch });
    assert.equal(res.json.result?.url, url, res.text);
  }
});
