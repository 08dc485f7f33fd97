// A2A v1.0 over JSON-RPC, end to end: the @a2a-js/sdk 1.3.0 default client (and its opt-in
// 0.3 client) against a running agent server, beside A2A 0.3 on the same endpoint. Raw
// requests where a client cannot go (bad input, versions); each raw result is validated
// against spec/a2a-v1.openrpc.json.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TaskState, type StreamResponse } from '@a2a-js/sdk-v1';
import type { Client } from '@a2a-js/sdk-v1/client';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import {
  artifactText,
  data,
  defaultClient,
  errorInfo,
  legacyFactory,
  listTasksRequest,
  rpcV1 as rpcV1Over,
  sendRequest,
  sse,
  text,
  userMessage,
  v1Graphs,
} from './v1harness.ts';

let server: InProcessApp;
let echo: Client;
let slow: Client;

before(async () => {
  // push notifications may reach this test's receiver on loopback
  server = await areaApp('a2a', { project: { graphs: v1Graphs, webhooks: { url: { allowed_networks: ['127.0.0.1/32'] } } } });
  echo = await defaultClient(server.url, 'echo', server.fetch);
  slow = await defaultClient(server.url, 'slow', server.fetch);
});
after(() => server.close());

const endpoint = (assistant: string) => `${server.url}/a2a/${assistant}`;
/** A raw v1.0 call to the app (or, with `send`, to another). */
const rpcV1 = (...[url, method, params, options]: Parameters<typeof rpcV1Over>) => rpcV1Over(url, method, params, { send: server.fetch, ...options });

async function task(result: Awaited<ReturnType<Client['sendMessage']>>) {
  assert.ok('status' in result, `a task, not a message: ${JSON.stringify(result)}`);
  return result;
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('the v1.0 agent card', () => {
  test('A2A-Version 1.0 gets the v1.0 card: JSON-RPC at 1.0 first, HTTP+JSON, then JSON-RPC at 0.3 (no gRPC port here), push notifications, Vary: A2A-Version', async () => {
    const res = await server.fetch(`${server.url}/.well-known/agent-card.json?assistant_id=echo`, { headers: { 'A2A-Version': '1.0' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('vary') ?? '', /A2A-Version/i);
    const card: any = await res.json();
    assert.deepEqual(card.supportedInterfaces, [
      { url: endpoint('echo'), protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${endpoint('echo')}/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: endpoint('echo'), protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    assert.deepEqual(card.capabilities, { streaming: true, pushNotifications: true, extendedAgentCard: false });
    for (const gone of ['url', 'preferredTransport', 'protocolVersion', 'additionalInterfaces']) assert.equal(gone in card, false, gone);
    assert.equal(card.skills[0].id, 'echo-main');
  });

  test('without a version (or with 0.3) the 0.3 card, which also lists the interfaces', async () => {
    for (const headers of [{}, { 'A2A-Version': '0.3' }] as Record<string, string>[]) {
      const res = await server.fetch(`${server.url}/.well-known/agent-card.json?assistant_id=echo`, { headers });
      const card: any = await res.json();
      assert.equal(card.protocolVersion, '0.3.0');
      assert.equal(card.url, endpoint('echo'));
      assert.equal(card.preferredTransport, 'JSONRPC');
      assert.equal(card.supportedInterfaces.length, 3);
      assert.match(res.headers.get('vary') ?? '', /A2A-Version/i);
    }
    const byQuery: any = await (await server.fetch(`${server.url}/.well-known/agent-card.json?assistant_id=echo&A2A-Version=1.0`)).json();
    assert.ok(byQuery.supportedInterfaces && !byQuery.url, 'the version as a request parameter');
  });
});

describe('the SDK 1.3.0 default client', () => {
  test('connects to the card and sends: the completed task with the reply as artifact and status message', async () => {
    const done = await task(await echo.sendMessage(sendRequest(userMessage([text('hello')]))));
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(artifactText(done), 'echo: hello');
    assert.match(done.contextId, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      done.history.map((m) => [m.role, m.parts[0].content?.value]),
      [
        [1, 'hello'],
        [2, 'echo: hello'],
      ],
    );
  });

  test('streams: the task submitted, working, the artifact, then completed, and the stream closes', async () => {
    const events = await collect(echo.sendMessageStream(sendRequest(userMessage([text('stream me')]))));
    const cases = events.map((e) => e.payload?.$case);
    assert.equal(cases[0], 'task');
    assert.equal(cases.at(-1), 'statusUpdate');
    assert.ok(cases.includes('artifactUpdate'), cases.join());
    const last = events.at(-1)!.payload as { $case: 'statusUpdate'; value: { status?: { state: TaskState } } };
    assert.equal(last.value.status?.state, TaskState.TASK_STATE_COMPLETED);
    const first = events[0].payload as { $case: 'task'; value: { status?: { state: TaskState } } };
    assert.equal(first.value.status?.state, TaskState.TASK_STATE_SUBMITTED);
  });

  test('gets a task by id, with historyLength', async () => {
    const done = await task(await echo.sendMessage(sendRequest(userMessage([text('get me')]))));
    const got = await echo.getTask({ tenant: '', id: done.id, historyLength: 1 });
    assert.equal(got.id, done.id);
    assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(got.history.length, 1);
    const none = await rpcV1(endpoint('echo'), 'GetTask', { id: done.id, historyLength: 0 });
    assert.equal('history' in none.json.result, false, 'historyLength 0 leaves history out');
    await assert.rejects(echo.getTask({ tenant: '', id: randomUUID() }), (err: Error) => err.name === 'TaskNotFoundError');
  });

  test('lists the tasks of a context newest first, a page at a time, without artifacts unless asked', async () => {
    const first = await task(await echo.sendMessage(sendRequest(userMessage([text('one')]))));
    const contextId = first.contextId;
    const second = await task(await echo.sendMessage(sendRequest(userMessage([text('two')], { contextId }))));
    const third = await task(await echo.sendMessage(sendRequest(userMessage([text('three')], { contextId }))));
    assert.notEqual(second.id, first.id, 'contextId alone starts a new task in the same context');
    assert.equal(second.contextId, contextId);
    const page1 = await echo.listTasks(listTasksRequest(contextId, { pageSize: 2, includeArtifacts: false }));
    assert.deepEqual(
      page1.tasks.map((t) => t.id),
      [third.id, second.id],
    );
    assert.equal(page1.totalSize, 3);
    assert.ok(page1.nextPageToken);
    assert.ok(page1.tasks.every((t) => t.artifacts.length === 0));
    const page2 = await echo.listTasks(listTasksRequest(contextId, { pageSize: 2, pageToken: page1.nextPageToken, includeArtifacts: true }));
    assert.deepEqual(
      page2.tasks.map((t) => t.id),
      [first.id],
    );
    assert.equal(page2.nextPageToken, '');
    assert.equal(artifactText(page2.tasks[0]), 'echo: one');
    const raw = await rpcV1(endpoint('echo'), 'ListTasks', { contextId, pageSize: 1 });
    assert.equal('artifacts' in raw.json.result.tasks[0], false, 'artifacts are left out, not empty');
    const done = await rpcV1(endpoint('echo'), 'ListTasks', { contextId, status: 'TASK_STATE_WORKING' });
    assert.deepEqual(done.json.result.tasks, []);
    assert.equal(done.json.result.nextPageToken, '');
  });

  test('cancels a working task; a task that ended is not cancelable', async () => {
    const submitted = await task(await slow.sendMessage(sendRequest(userMessage([text('wait')]), { returnImmediately: true })));
    assert.equal(submitted.status?.state, TaskState.TASK_STATE_SUBMITTED);
    const canceled = await slow.cancelTask({ tenant: '', id: submitted.id, metadata: undefined });
    assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
    await assert.rejects(slow.cancelTask({ tenant: '', id: submitted.id, metadata: undefined }), (err: Error) => err.name === 'TaskNotCancelableError');
  });

  test('resubscribes to a working task: the task first, then its updates until it is canceled', async () => {
    const submitted = await task(await slow.sendMessage(sendRequest(userMessage([text('wait')]), { returnImmediately: true })));
    const events = collect(slow.resubscribeTask({ tenant: '', id: submitted.id }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await slow.cancelTask({ tenant: '', id: submitted.id, metadata: undefined });
    const seen = await events;
    assert.equal(seen[0].payload?.$case, 'task');
    const last = seen.at(-1)!.payload as { $case: string; value: { status?: { state: TaskState } } };
    assert.equal(last.$case, 'statusUpdate');
    assert.equal(last.value.status?.state, TaskState.TASK_STATE_CANCELED);
    await assert.rejects(collect(slow.resubscribeTask({ tenant: '', id: submitted.id })), (err: Error) => err.name === 'UnsupportedOperationError');
  });

  test('a message to a task that ended is refused (UnsupportedOperationError) and starts nothing', async () => {
    const done = await task(await echo.sendMessage(sendRequest(userMessage([text('first')]))));
    await assert.rejects(
      echo.sendMessage(sendRequest(userMessage([text('again')], { taskId: done.id, contextId: done.contextId }))),
      (err: Error) => err.name === 'UnsupportedOperationError',
    );
    const after = await echo.getTask({ tenant: '', id: done.id });
    assert.equal(after.history.length, 2, 'nothing was added to the task');
  });

  test('push notification configs: created, read, listed and deleted; another task id is not found', async () => {
    const done = await task(await echo.sendMessage(sendRequest(userMessage([text('push')]))));
    const created = await echo.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: done.id,
      url: 'https://hooks.example.com/a2a',
      token: 't0k',
      authentication: undefined,
    });
    assert.ok(created.id);
    assert.equal(created.url, 'https://hooks.example.com/a2a');
    const got = await echo.getTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: created.id });
    assert.equal(got.token, 't0k');
    const listed = await echo.listTaskPushNotificationConfig({ tenant: '', taskId: done.id, pageSize: 0, pageToken: '' });
    assert.deepEqual(
      listed.configs.map((c) => c.id),
      [created.id],
    );
    await echo.deleteTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: created.id });
    await echo.deleteTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: created.id });
    assert.equal((await echo.listTaskPushNotificationConfig({ tenant: '', taskId: done.id, pageSize: 0, pageToken: '' })).configs.length, 0);
    await assert.rejects(
      echo.createTaskPushNotificationConfig({
        tenant: '',
        id: '',
        taskId: randomUUID(),
        url: 'https://hooks.example.com/a2a',
        token: '',
        authentication: undefined,
      }),
      (err: Error) => err.name === 'TaskNotFoundError',
    );
    const badUrl = await rpcV1(endpoint('echo'), 'CreateTaskPushNotificationConfig', { taskId: done.id, url: 'file:///etc/passwd' });
    assert.equal(badUrl.json.error.code, -32602);
  });

  test('a push config given with the message is notified when the run ends: the task, the token, the credentials', async () => {
    const received: { headers: http.IncomingHttpHeaders; body: any }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(body) });
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const pushConfig = { tenant: '', id: 'mine', taskId: '', url, token: 'secret-token', authentication: { scheme: 'Bearer', credentials: 'abc' } };
      const done = await task(await echo.sendMessage(sendRequest(userMessage([text('notify me')]), { taskPushNotificationConfig: pushConfig })));
      for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(received.length, 1);
      assert.equal(received[0].body.task.id, done.id);
      assert.equal(received[0].body.task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(received[0].headers['x-a2a-notification-token'], 'secret-token');
      assert.equal(received[0].headers.authorization, 'Bearer abc');
      assert.equal((await echo.getTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: 'mine' })).url, url);
    } finally {
      receiver.close();
    }
  });

  test('GetExtendedAgentCard without one configured is -32007 ExtendedAgentCardNotConfigured (spec §5.4)', async () => {
    const res = await rpcV1(endpoint('echo'), 'GetExtendedAgentCard', {});
    assert.equal(res.json.error.code, -32007);
    assert.equal(errorInfo(res.json.error).reason, 'EXTENDED_AGENT_CARD_NOT_CONFIGURED');
  });
});

describe('interrupts: TASK_STATE_INPUT_REQUIRED, resumed by the next message', () => {
  test('an interrupt() graph (approval) waits for input; a data part answers the interrupt and the task completes', async () => {
    const client = await defaultClient(server.url, 'approval', server.fetch);
    const waiting = await task(await client.sendMessage(sendRequest(userMessage([text('email bob about lunch')]))));
    assert.equal(waiting.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    const resumed = await task(
      await client.sendMessage(sendRequest(userMessage([data({ decisions: [{ type: 'approve' }] })], { taskId: waiting.id, contextId: waiting.contextId }))),
    );
    assert.equal(resumed.id, waiting.id);
    assert.equal(resumed.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.match(String(artifactText(resumed)), /^Sent to bob@example\.com/);
  });

  test('a text answer resumes it too, and a stream of the resumed task closes when it completes', async () => {
    const client = await defaultClient(server.url, 'approval', server.fetch);
    const waiting = await task(await client.sendMessage(sendRequest(userMessage([text('email ann about tea')]))));
    const events = await collect(client.sendMessageStream(sendRequest(userMessage([text('not now')], { taskId: waiting.id }))));
    const last = events.at(-1)!.payload as { $case: string; value: { status?: { state: TaskState } } };
    assert.equal(last.value.status?.state, TaskState.TASK_STATE_COMPLETED);
    const got = await client.getTask({ tenant: '', id: waiting.id });
    assert.equal(artifactText(got), 'Not sent.');
  });

  test('subscribing to a task that waits for input gives the task as it is, then closes: nothing is left to follow', async () => {
    const client = await defaultClient(server.url, 'approval', server.fetch);
    const waiting = await task(await client.sendMessage(sendRequest(userMessage([text('email dee about cake')]))));
    const events = await collect(client.resubscribeTask({ tenant: '', id: waiting.id }));
    assert.deepEqual(
      events.map((e) => [e.payload?.$case, (e.payload?.value as { status?: { state: TaskState } }).status?.state]),
      [['task', TaskState.TASK_STATE_INPUT_REQUIRED]],
    );
  });

  test('a breakpoint (interruptBefore) waits for input; the next message continues the run', async () => {
    const client = await defaultClient(server.url, 'breakpoint', server.fetch);
    const events = await collect(client.sendMessageStream(sendRequest(userMessage([text('email cy about rent')]))));
    const paused = events.at(-1)!.payload as { $case: string; value: { taskId: string; status?: { state: TaskState } } };
    assert.equal(paused.value.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'the stream closes at the interrupt');
    const resumed = await task(await client.sendMessage(sendRequest(userMessage([text('go on')], { taskId: paused.value.taskId }))));
    assert.equal(resumed.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.match(String(artifactText(resumed)), /^Sent to cy@example\.com/);
  });
});

describe('the SDK 1.3.0 opt-in 0.3 client, and 0.3 beside 1.0', () => {
  test('the legacy client reads the 0.3 card and speaks 0.3 to the same endpoint', async () => {
    const card: any = await (await server.fetch(`${server.url}/.well-known/agent-card.json?assistant_id=echo`)).json();
    const only03 = { ...card, supportedInterfaces: undefined };
    const client = await legacyFactory(server.fetch).createFromAgentCard(only03);
    const done = await task(await client.sendMessage(sendRequest(userMessage([text('old')]))));
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(artifactText(done), 'echo: old');
  });

  test('a 0.3 task is visible through 1.0 and the other way round: one task service under both', async () => {
    const old = await rpcV1(
      endpoint('echo'),
      'message/send',
      { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'x' }] } },
      { version: null },
    );
    const id = old.json.result.id;
    const got = await rpcV1(endpoint('echo'), 'GetTask', { id });
    assert.equal(got.json.result.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(got.json.result.artifacts[0].parts[0].text, 'echo: x');
    assert.equal('kind' in got.json.result, false);
  });
});

describe('bad input gets the spec error and changes nothing', () => {
  const total = async () => (await rpcV1(endpoint('echo'), 'ListTasks', { pageSize: 1 })).json.result.totalSize;

  test('wrong version, unknown method, bad params, unparseable body, a bad part, oversized body', async () => {
    const before = await total();
    const wrong = await rpcV1(endpoint('echo'), 'SendMessage', { message: userMessageJson('x') }, { version: '2.0', id: 'v' });
    assert.equal(wrong.status, 200);
    assert.equal(wrong.json.error.code, -32009);
    assert.equal(wrong.json.id, 'v');
    assert.equal(errorInfo(wrong.json.error).reason, 'VERSION_NOT_SUPPORTED');
    assert.equal(errorInfo(wrong.json.error).domain, 'a2a-protocol.org');
    const byQuery = await rpcV1(`${endpoint('echo')}?A2A-Version=9.9`, 'GetTask', { id: 'x' }, { version: null });
    assert.equal(byQuery.json.error.code, -32009);

    const v03method = await rpcV1(endpoint('echo'), 'message/send', { message: userMessageJson('x') });
    assert.equal(v03method.json.error.code, -32601, 'a 0.3 method asked for as 1.0 is unknown');
    const v1method = await rpcV1(endpoint('echo'), 'SendMessage', { message: userMessageJson('x') }, { version: null });
    assert.equal(v1method.json.error.code, -32601, 'a 1.0 method without a version (0.3) is unknown');

    const badParams = await rpcV1(endpoint('echo'), 'GetTask', { historyLength: -1 });
    assert.equal(badParams.json.error.code, -32602);
    assert.equal(errorInfo(badParams.json.error).reason, 'INVALID_PARAMS');
    assert.ok(badParams.json.error.data.some((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest' && d.fieldViolations.length > 0));

    const badRole = await rpcV1(endpoint('echo'), 'SendMessage', { message: { ...userMessageJson('x'), role: 'ROLE_KING' } });
    assert.equal(badRole.json.error.code, -32602);
    const twoContents = await rpcV1(endpoint('echo'), 'SendMessage', { message: { ...userMessageJson('x'), parts: [{ text: 'a', data: { b: 1 } }] } });
    assert.equal(twoContents.json.error.code, -32602);
    // a file is taken (messages.files.test.ts), but its URL must be one
    const file = await rpcV1(endpoint('echo'), 'SendMessage', {
      message: { ...userMessageJson('x'), parts: [{ url: 'a.pdf', mediaType: 'application/pdf' }] },
    });
    assert.equal(file.json.error.code, -32602);
    assert.equal(errorInfo(file.json.error).reason, 'INVALID_PARAMS');

    const unparseable = await rpcV1(endpoint('echo'), 'SendMessage', null, { body: '{"jsonrpc": "2.0", "id": 1, "method": "SendMess' });
    assert.equal(unparseable.json.error.code, -32700);
    assert.equal(unparseable.json.id, null);

    const huge = await rpcV1(endpoint('echo'), 'SendMessage', { message: userMessageJson('x'.repeat(2 * 1024 * 1024)) });
    assert.equal(huge.status, 413, huge.text.slice(0, 200));

    const streamed = await server.fetch(endpoint('echo'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SubscribeToTask', params: { id: randomUUID() } }),
    });
    assert.match(streamed.headers.get('content-type') ?? '', /application\/json/, 'an error before the first event is a JSON answer');
    assert.equal(((await streamed.json()) as any).error.code, -32001);

    assert.equal(await total(), before, 'no task was made');
  });

  test('http.disable_a2a removes v1.0 as well', async () => {
    const off = await areaApp('a2a', { project: { graphs: v1Graphs, http: { disable_a2a: true } } });
    try {
      assert.equal((await rpcV1(`${off.url}/a2a/echo`, 'GetTask', { id: 'x' }, { send: off.fetch })).status, 404);
      assert.equal((await off.fetch(`${off.url}/.well-known/agent-card.json?assistant_id=echo`, { headers: { 'A2A-Version': '1.0' } })).status, 404);
    } finally {
      await off.close();
    }
  });
});

function userMessageJson(value: string) {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: value }] };
}

// keep `sse` in the harness's public surface used: streams read raw in other v1.0 suites
void sse;

describe('tenants (agent-server auth on): v1.0 keeps them apart as 0.3 does', () => {
  test("B cannot get, list, cancel, subscribe to, continue or configure pushes for A's task", async () => {
    const tenants = await areaApp('a2a', {
      project: { graphs: v1Graphs },
      dataDir: null,
      env: { AGENTPLANE_AGENT_SERVER_AUTH: '1', AGENTPLANE_API_KEYS: `key-a:${randomUUID()},key-b:${randomUUID()}` },
    });
    try {
      const url = `${tenants.url}/a2a/echo`;
      const as = (key: string) => ({ headers: { 'x-api-key': key }, send: tenants.fetch });
      const sent = await rpcV1(url, 'SendMessage', { message: userMessageJson('of a') }, as('key-a'));
      const { id, contextId } = sent.json.result.task;
      for (const [method, params] of [
        ['GetTask', { id }],
        ['CancelTask', { id }],
        ['SubscribeToTask', { id }],
        ['CreateTaskPushNotificationConfig', { taskId: id, url: 'https://hooks.example.com/x' }],
        ['ListTaskPushNotificationConfigs', { taskId: id }],
        ['SendMessage', { message: { ...userMessageJson('b'), taskId: id } }],
      ] as const) {
        const foreign = await rpcV1(url, method, params, as('key-b'));
        assert.equal(foreign.json.error?.code, -32001, `${method}: ${foreign.text}`);
      }
      const listed = await rpcV1(url, 'ListTasks', {}, as('key-b'));
      assert.deepEqual(listed.json.result.tasks, []);
      assert.equal(listed.json.result.totalSize, 0);
      const mine = await rpcV1(url, 'ListTasks', { contextId }, as('key-a'));
      assert.deepEqual(
        mine.json.result.tasks.map((t: any) => t.id),
        [id],
      );
      assert.equal(mine.json.result.tasks[0].status.state, 'TASK_STATE_COMPLETED', "B's attempts changed nothing");
      assert.equal((await rpcV1(url, 'GetTask', { id }, { version: '1.0', send: tenants.fetch })).status, 401, 'no key, no answer');
    } finally {
      await tenants.close();
    }
  });
});
