// A2A across replicas on one PostgreSQL database: a task sent through replica 1 is read,
// listed, followed, cancelled and continued through replica 2, over A2A v1.0 (the SDK 1.3.0
// client over JSON-RPC, HTTP+JSON and gRPC, each replica's own card) and over 0.3 (the 0.3.14
// client); a push config registered through one replica is served by the other and notified
// once, whichever replica ran the task.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk-v1/client';
import { GrpcTransportFactory } from '@a2a-js/sdk-v1/client/grpc';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk-v1';
import { A2AClient } from '@a2a-js/sdk/client';
import pg from 'pg';
import { spawnServer, tempDir, type ChildServer } from '../support/server.ts';
import { freshDatabaseUrl } from '../support/postgres.ts';
import { logLine } from '../support/logLines.ts';
import { artifactText, data, listTasksRequest, sendRequest, text, userMessage, v1Graphs } from './a2a/v1harness.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let one: ChildServer;
let two: ChildServer;
const hooks: { url: string; body: any }[] = [];
let receiver: http.Server;
let hookUrl = '';
let db: pg.Client;

before(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      hooks.push({ url: req.url ?? '', body: JSON.parse(body) });
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // the A2A fixture graphs (`slow` blocks until its run is canceled) and `approval` (an interrupt); pushes may reach the receiver on loopback
  const project = path.join(tempDir(), 'agentplane.json');
  fs.writeFileSync(project, JSON.stringify({ graphs: v1Graphs, webhooks: { url: { allowed_networks: ['127.0.0.1/32'] } } }));
  const databaseUrl = await freshDatabaseUrl();
  const start = () => spawnServer(['--data', tempDir(), '--config', project, '--grpc-port', '0'], { DATABASE_URL: databaseUrl, AGENTPLANE_ACCESS_LOG: '0' });
  // the first creates the schema
  one = await start();
  two = await start();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
});
after(async () => {
  await db?.end();
  await Promise.all([one?.kill('SIGKILL'), two?.kill('SIGKILL')]);
  receiver?.close();
});

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
type Binding = (typeof BINDINGS)[number];

/** The SDK 1.3.0 client from the replica's own card, told to take one binding of it. */
async function clientOver(replica: ChildServer, binding: Binding, assistant: string): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
    preferredTransports: [binding],
  });
  const client = await new ClientFactory(options).createFromUrl(replica.url, `/.well-known/agent-card.json?assistant_id=${assistant}`);
  assert.equal((client as unknown as { transport: { protocolName: string } }).transport.protocolName, binding);
  return client;
}

function asTask(result: Awaited<ReturnType<Client['sendMessage']>>): Task {
  assert.ok('status' in result, `a task, not a message: ${JSON.stringify(result)}`);
  return result;
}

const stateOf = (event: StreamResponse | undefined) =>
  event?.payload?.$case === 'statusUpdate'
    ? event.payload.value.status?.state
    : event?.payload?.$case === 'task'
      ? event.payload.value.status?.state
      : undefined;

const replicaIdOf = (server: ChildServer): string => logLine(server.output(), 'agentplane listening')!.replica_id;

/**
 * The replica executing the task's run (its claim in the database), and the other: a cancel
 * through the other must reach the executor through the database.
 */
async function executorOf(contextId: string): Promise<{ executing: ChildServer; other: ChildServer }> {
  let holder: string | undefined;
  for (let i = 0; i < 500 && !holder; i += 1) {
    holder = (await db.query<{ replica: string }>('SELECT replica FROM agentplane_run_claims WHERE thread_id = $1', [contextId])).rows[0]?.replica;
    if (!holder) await sleep(20);
  }
  const executing = [one, two].find((server) => replicaIdOf(server) === holder);
  assert.ok(executing, `the task's run was claimed by a replica (${holder})`);
  return { executing, other: executing === one ? two : one };
}

/** Waits until `check` holds, for up to `ms`. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !check() && Date.now() < end;) await sleep(20);
}

for (const binding of BINDINGS) {
  describe(`A2A 1.0 over ${binding}: sent through replica 1, served by replica 2`, () => {
    test('read, listed, and continued (streamed) in its context', async () => {
      const [first, second] = await Promise.all([clientOver(one, binding, 'echo'), clientOver(two, binding, 'echo')]);
      const sent = asTask(await first.sendMessage(sendRequest(userMessage([text('hello')]))));
      assert.equal(sent.status?.state, TaskState.TASK_STATE_COMPLETED);
      const got = await second.getTask({ tenant: '', id: sent.id, historyLength: undefined });
      assert.equal(got.id, sent.id);
      assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(got), 'echo: hello');
      assert.deepEqual(
        (await second.listTasks(listTasksRequest(sent.contextId))).tasks.map((t) => t.id),
        [sent.id],
      );
      // the conversation goes on through replica 2, streamed: a new task in the same context
      const events: StreamResponse[] = [];
      for await (const event of second.sendMessageStream(sendRequest(userMessage([text('again')], { contextId: sent.contextId })))) events.push(event);
      assert.equal(events[0]?.payload?.$case, 'task');
      const next = events[0]?.payload?.$case === 'task' ? events[0].payload.value : undefined;
      assert.equal(next?.contextId, sent.contextId);
      assert.notEqual(next?.id, sent.id);
      assert.equal(stateOf(events.at(-1)), TaskState.TASK_STATE_COMPLETED);
      assert.deepEqual((await first.listTasks(listTasksRequest(sent.contextId))).tasks.map((t) => t.id).sort(), [sent.id, next?.id].sort());
      // a page token from one replica pages on through the other
      const page1 = await first.listTasks(listTasksRequest(sent.contextId, { pageSize: 1 }));
      const page2 = await second.listTasks(listTasksRequest(sent.contextId, { pageSize: 1, pageToken: page1.nextPageToken }));
      assert.deepEqual(
        [...page1.tasks, ...page2.tasks].map((t) => t.id),
        [next?.id, sent.id],
      );
      assert.equal(page2.nextPageToken, '');
    });

    test('waiting at an interrupt through replica 1, resumed by a message through replica 2', async () => {
      const [first, second] = await Promise.all([clientOver(one, binding, 'approval'), clientOver(two, binding, 'approval')]);
      const waiting = asTask(await first.sendMessage(sendRequest(userMessage([text('email bob about lunch')]))));
      assert.equal(waiting.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      const resumed = asTask(
        await second.sendMessage(sendRequest(userMessage([data({ decisions: [{ type: 'approve' }] })], { taskId: waiting.id, contextId: waiting.contextId }))),
      );
      assert.equal(resumed.id, waiting.id);
      assert.equal(resumed.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal((await first.getTask({ tenant: '', id: waiting.id, historyLength: undefined })).status?.state, TaskState.TASK_STATE_COMPLETED);
    });

    test('followed (SubscribeToTask) through both replicas and cancelled through the one not running it; its push config, set through replica 1, is served by 2 and notified once', async () => {
      const clients = new Map(await Promise.all([one, two].map(async (replica) => [replica, await clientOver(replica, binding, 'slow')] as const)));
      const first = clients.get(one)!;
      const second = clients.get(two)!;
      const started = asTask(await first.sendMessage(sendRequest(userMessage([text('wait')]), { returnImmediately: true })));
      const hook = `${hookUrl}/${binding}`;
      const config = await first.createTaskPushNotificationConfig({
        tenant: '',
        id: 'hook',
        taskId: started.id,
        url: hook,
        token: 't',
        authentication: undefined,
      });
      assert.equal(config.id, 'hook');
      assert.equal((await second.getTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: 'hook' })).url, hook);
      assert.deepEqual(
        (await second.listTaskPushNotificationConfig({ tenant: '', taskId: started.id, pageSize: 0, pageToken: '' })).configs.map((c) => c.id),
        ['hook'],
      );

      const { other } = await executorOf(started.contextId);
      const followers = [first, second].map((client) => {
        const events: StreamResponse[] = [];
        const done = (async () => {
          for await (const event of client.resubscribeTask({ tenant: '', id: started.id })) events.push(event);
        })();
        return { events, done };
      });
      await until(() => followers.every((f) => f.events.length > 0));
      for (const { events } of followers) assert.equal(events[0]?.payload?.$case, 'task', 'a subscription opens with the task');
      const canceled = await clients.get(other)!.cancelTask({ tenant: '', id: started.id, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      for (const [n, { events, done }] of followers.entries()) {
        await Promise.race([done, sleep(15_000).then(() => assert.fail(`the subscription through replica ${n + 1} did not end: ${JSON.stringify(events)}`))]);
        assert.equal(stateOf(events.at(-1)), TaskState.TASK_STATE_CANCELED, `replica ${n + 1}'s subscription ends canceled`);
      }
      for (const client of [first, second]) {
        assert.equal((await client.getTask({ tenant: '', id: started.id, historyLength: undefined })).status?.state, TaskState.TASK_STATE_CANCELED);
      }

      await until(() => hooks.some((h) => h.url === `/${binding}`));
      await sleep(1_000);
      const notified = hooks.filter((h) => h.url === `/${binding}`);
      assert.equal(notified.length, 1, `one notification: ${JSON.stringify(notified)}`);
      assert.equal(notified[0].body.task.id, started.id);
      assert.equal(notified[0].body.task.status.state, 'TASK_STATE_CANCELED');
      await second.deleteTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: 'hook' });
      assert.equal((await first.listTaskPushNotificationConfig({ tenant: '', taskId: started.id, pageSize: 0, pageToken: '' })).configs.length, 0);
    });
  });
}

describe('A2A 0.3 (the 0.3.14 client): sent through replica 1, served by replica 2', () => {
  const card = (replica: ChildServer, assistant: string) => A2AClient.fromCardUrl(`${replica.url}/.well-known/agent-card.json?assistant_id=${assistant}`);
  const message = (value: string, contextId?: string) => ({
    message: { kind: 'message' as const, messageId: crypto.randomUUID(), role: 'user' as const, parts: [{ kind: 'text' as const, text: value }], contextId },
  });
  const result = <T>(response: { result?: T; error?: unknown }): T => {
    assert.ok(response.result !== undefined, JSON.stringify(response));
    return response.result;
  };

  test('message/send, then tasks/get and a streamed follow-up (message/stream) through the other', async () => {
    const [first, second] = await Promise.all([card(one, 'echo'), card(two, 'echo')]);
    const sent = result(await first.sendMessage(message('hello'))) as any;
    assert.equal(sent.status.state, 'completed');
    const got = result(await second.getTask({ id: sent.id })) as any;
    assert.equal(got.status.state, 'completed');
    assert.equal(got.artifacts[0].parts[0].text, 'echo: hello');
    const events: any[] = [];
    for await (const event of second.sendMessageStream(message('again', sent.contextId))) events.push(event);
    assert.equal(events[0].kind, 'task');
    assert.equal(events[0].contextId, sent.contextId);
    assert.equal(events.at(-1).final, true);
    assert.equal(events.at(-1).status.state, 'completed');
  });

  test('tasks/resubscribe through both, tasks/cancel through the one not running it', async () => {
    const clients = new Map(await Promise.all([one, two].map(async (replica) => [replica, await card(replica, 'slow')] as const)));
    const started = result(await clients.get(one)!.sendMessage({ ...message('wait'), configuration: { blocking: false } })) as any;
    const { other } = await executorOf(started.contextId);
    const followers = [...clients.values()].map((client) => {
      const events: any[] = [];
      const done = (async () => {
        for await (const event of client.resubscribeTask({ id: started.id })) events.push(event);
      })();
      return { events, done };
    });
    await until(() => followers.every((f) => f.events.length > 0));
    for (const { events } of followers) assert.equal(events[0].kind, 'task');
    const canceled = result(await clients.get(other)!.cancelTask({ id: started.id })) as any;
    assert.equal(canceled.status.state, 'canceled');
    for (const [n, { events, done }] of followers.entries()) {
      await Promise.race([done, sleep(15_000).then(() => assert.fail(`the subscription through replica ${n + 1} did not end: ${JSON.stringify(events)}`))]);
      assert.equal(events.at(-1).final, true);
      assert.equal(events.at(-1).status.state, 'canceled');
    }
    for (const client of clients.values()) assert.equal((result(await client.getTask({ id: started.id })) as any).status.state, 'canceled');
  });
});
