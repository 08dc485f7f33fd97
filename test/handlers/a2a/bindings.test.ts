// The A2A v1.0 HTTP+JSON and gRPC bindings, driven by @a2a-js/sdk 1.3.0's own client from an
// assistant's card: send, stream, get, list, cancel and resubscribe over each, the errors the
// SDK reads back, and the same tasks seen through every binding.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk-v1/client';
import { GrpcTransportFactory } from '@a2a-js/sdk-v1/client/grpc';
import { Role, TaskState, type SendMessageRequest, type StreamResponse } from '@a2a-js/sdk-v1';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { fixtureGraphs } from './harness.ts';
import { listTasksRequest } from './v1harness.ts';
import { status as Code } from '@grpc/grpc-js';
import { rawGrpc } from './grpcRaw.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer({ project: { graphs: fixtureGraphs }, env: { AGENTPLANE_GRPC_PORT: '0' } });
  const grpc = await server.grpc;
  assert.ok('port' in grpc, `the gRPC port serves: ${JSON.stringify(grpc)}`);
});
after(() => server.close());

const BINDINGS = ['HTTP+JSON', 'GRPC'] as const;
type Binding = (typeof BINDINGS)[number] | 'JSONRPC';

/** The SDK's default client factory, told to prefer one binding of the card (gRPC's transport is the SDK's opt-in one). */
async function clientOver(binding: Binding, assistant: string): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
    preferredTransports: [binding],
  });
  const client = await new ClientFactory(options).createFromUrl(server.url, `/.well-known/agent-card.json?assistant_id=${assistant}`);
  assert.equal((client as unknown as { transport: { protocolName: string } }).transport.protocolName, binding);
  return client;
}

function textMessage(text: string, ids: { taskId?: string; contextId?: string } = {}, returnImmediately = false): SendMessageRequest {
  return {
    tenant: '',
    metadata: {},
    message: {
      messageId: crypto.randomUUID(),
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
      taskId: ids.taskId ?? '',
      contextId: ids.contextId ?? '',
      extensions: [],
      metadata: {},
      referenceTaskIds: [],
    },
    configuration: returnImmediately
      ? { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately }
      : undefined,
  };
}

const textOf = (part: { content?: { $case: string; value: unknown } } | undefined) => (part?.content?.$case === 'text' ? part.content.value : undefined);

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The error a call ends with: its SDK class name. */
async function failure(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
  } catch (err) {
    return (err as Error).name;
  }
  assert.fail('the call succeeded');
}

test('the card lists HTTP+JSON and gRPC at 1.0, gRPC at the port it serves with the assistant as tenant', async () => {
  const res = await fetch(`${server.url}/.well-known/agent-card.json?assistant_id=echo`, { headers: { 'A2A-Version': '1.0' } });
  const card = (await res.json()) as { supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string; tenant?: string }[] };
  const grpc = await server.grpc;
  const rest = card.supportedInterfaces.find((i) => i.protocolBinding === 'HTTP+JSON');
  const grpcInterface = card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC');
  assert.deepEqual(rest, { url: `${server.url}/a2a/echo/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' });
  assert.deepEqual(grpcInterface, { url: `127.0.0.1:${'port' in grpc ? grpc.port : -1}`, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 'echo' });
});

for (const binding of BINDINGS) {
  describe(`the SDK 1.3.0 client over ${binding}`, () => {
    let echo: Client;
    let slow: Client;
    before(async () => {
      echo = await clientOver(binding, 'echo');
      slow = await clientOver(binding, 'slow');
    });

    test('sends: the completed task with the reply; gets it back by id; lists it', async () => {
      const sent = await echo.sendMessage(textMessage('hello'));
      assert.ok('id' in sent, 'a task comes back');
      assert.equal(sent.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(textOf(sent.artifacts[0]?.parts[0]), 'echo: hello');
      const got = await echo.getTask({ tenant: '', id: sent.id, historyLength: undefined });
      assert.equal(got.id, sent.id);
      assert.equal(got.contextId, sent.contextId);
      assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);
      const listed = await echo.listTasks(listTasksRequest(sent.contextId));
      assert.deepEqual(
        listed.tasks.map((t) => t.id),
        [sent.id],
      );
      assert.equal(listed.nextPageToken, '');
    });

    test('a follow-up in the same context is a new task there', async () => {
      const first = await echo.sendMessage(textMessage('one'));
      assert.ok('id' in first);
      const second = await echo.sendMessage(textMessage('two', { contextId: first.contextId }));
      assert.ok('id' in second);
      assert.equal(second.contextId, first.contextId);
      assert.notEqual(second.id, first.id);
      assert.equal(textOf(second.artifacts[0]?.parts[0]), 'echo: two');
    });

    test('streams: the task first, then updates, closed at the terminal state', async () => {
      const events = await collect(echo.sendMessageStream(textMessage('streamed')));
      assert.equal(events[0]?.payload?.$case, 'task');
      const last = events[events.length - 1]?.payload;
      assert.equal(last?.$case, 'statusUpdate');
      assert.equal(last?.$case === 'statusUpdate' ? last.value.status?.state : undefined, TaskState.TASK_STATE_COMPLETED);
      const artifact = events.find((e) => e.payload?.$case === 'artifactUpdate')?.payload;
      assert.equal(artifact?.$case === 'artifactUpdate' ? textOf(artifact.value.artifact?.parts[0]) : undefined, 'echo: streamed');
    });

    test('cancels a running task, and resubscribing to it follows it to its cancellation', async () => {
      const started = await slow.sendMessage(textMessage('wait', {}, true));
      assert.ok('id' in started);
      const events: StreamResponse[] = [];
      const followed = (async () => {
        for await (const event of slow.resubscribeTask({ tenant: '', id: started.id })) events.push(event);
      })();
      // the first event of a subscription is the task as it is
      while (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(events[0]?.payload?.$case, 'task');
      const canceled = await slow.cancelTask({ tenant: '', id: started.id, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      await followed;
      const last = events[events.length - 1]?.payload;
      assert.equal(
        last?.$case === 'statusUpdate' ? last.value.status?.state : last?.$case === 'task' ? last.value.status?.state : undefined,
        TaskState.TASK_STATE_CANCELED,
      );
      assert.equal(await failure(() => slow.cancelTask({ tenant: '', id: started.id, metadata: undefined })), 'TaskNotCancelableError');
    });

    test('errors come back as the SDK reads them: unknown task, resubscribing to an ended task', async () => {
      assert.equal(await failure(() => echo.getTask({ tenant: '', id: crypto.randomUUID(), historyLength: undefined })), 'TaskNotFoundError');
      const done = await echo.sendMessage(textMessage('ended'));
      assert.ok('id' in done);
      assert.equal(await failure(() => collect(echo.resubscribeTask({ tenant: '', id: done.id }))), 'UnsupportedOperationError');
      assert.equal(await failure(() => echo.sendMessage(textMessage('again', { taskId: done.id }))), 'UnsupportedOperationError');
    });
  });
}

// a call answered once holds no stream slot on any binding: 200 at once from one client (the
// default cap is 100 streams a client) all complete (issue 85: JSON-RPC refused 82-100 of them)
for (const binding of ['JSONRPC', ...BINDINGS] as const) {
  test(`200 concurrent SendMessage over ${binding} from one client complete with no error under the default limits`, async () => {
    const client = await clientOver(binding, 'echo');
    const settled = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => client.sendMessage(textMessage(`n${i}`))));
    const failures = settled.flatMap((s) => (s.status === 'rejected' ? [String((s.reason as Error).message ?? s.reason)] : []));
    assert.deepEqual(failures.slice(0, 3), []);
    for (const [i, s] of settled.entries()) {
      const task = s.status === 'fulfilled' ? s.value : undefined;
      assert.ok(task && 'id' in task && task.status?.state === TaskState.TASK_STATE_COMPLETED, `call ${i}`);
      assert.equal(textOf(task.artifacts[0]?.parts[0]), `echo: n${i}`);
    }
  });
}

// a file sent by a client reaches the graph as LangChain's standard content block, and the
// graph's file blocks come back as file parts, on every binding (issue 85: file parts were -32005)
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
for (const binding of ['JSONRPC', ...BINDINGS] as const) {
  test(`a file part round-trips into the graph and back out over ${binding}: bytes and a URL`, async () => {
    const client = await clientOver(binding, 'files');
    const request = textMessage('look');
    request.message!.parts.push(
      { content: { $case: 'raw', value: PNG }, metadata: undefined, filename: 'dot.png', mediaType: 'image/png' },
      { content: { $case: 'url', value: 'https://files.example/report.pdf' }, metadata: undefined, filename: 'report.pdf', mediaType: 'application/pdf' },
    );
    const sent = await client.sendMessage(request);
    assert.ok('id' in sent, 'a task comes back');
    assert.equal(sent.status?.state, TaskState.TASK_STATE_COMPLETED);
    const [said, raw, url] = sent.artifacts[0]?.parts ?? [];
    // what the graph read: an image block with its bytes, a file block with its URL, each named
    assert.equal(textOf(said), 'got image image/png data dot.png; file application/pdf url report.pdf');
    assert.equal(raw?.content?.$case, 'raw');
    assert.deepEqual(raw?.content?.$case === 'raw' ? Buffer.from(raw.content.value) : undefined, PNG);
    assert.deepEqual([raw?.filename, raw?.mediaType], ['dot.png', 'image/png']);
    assert.deepEqual(url?.content, { $case: 'url', value: 'https://files.example/report.pdf' });
    assert.deepEqual([url?.filename, url?.mediaType], ['report.pdf', 'application/pdf']);
    // the task's history gives the client's message back with its files
    const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    const mine = got.history.find((m) => m.messageId === request.message!.messageId);
    assert.deepEqual(
      mine?.parts.map((p) => p.content?.$case),
      ['text', 'raw', 'url'],
    );
  });
}

test('one task, every binding: sent over gRPC, read over HTTP+JSON and JSON-RPC', async () => {
  const grpc = await clientOver('GRPC', 'echo');
  const sent = await grpc.sendMessage(textMessage('across'));
  assert.ok('id' in sent);
  const rest = await fetch(`${server.url}/a2a/echo/v1/tasks/${sent.id}`, { headers: { 'A2A-Version': '1.0' } });
  assert.equal(rest.status, 200);
  assert.equal(rest.headers.get('content-type'), 'application/a2a+json');
  const body = (await rest.json()) as { id: string; status: { state: string } };
  assert.equal(body.id, sent.id);
  assert.equal(body.status.state, 'TASK_STATE_COMPLETED');
  const rpc = await fetch(`${server.url}/a2a/echo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: sent.id } }),
  });
  assert.equal(((await rpc.json()) as { result: { id: string } }).result.id, sent.id);
});

// mock mode serves the gRPC binding too, from the v1.0 OpenRPC examples (issue 85: the mock
// served no A2A v1.0 on gRPC)
test('mock mode answers A2A v1.0 over gRPC: the SDK client sends and gets the examples; a call without A2A-Version 1.0 is refused', async () => {
  const mock = await startTestServer({ mock: true, env: { AGENTPLANE_GRPC_PORT: '0' } });
  try {
    const grpc = await mock.grpc;
    assert.ok('port' in grpc, JSON.stringify(grpc));
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new GrpcTransportFactory()], preferredTransports: ['GRPC'] });
    const client = await new ClientFactory(options).createFromAgentCard(exampleCardFor(`127.0.0.1:${grpc.port}`) as never);
    const sent = await client.sendMessage(textMessage('hello'));
    assert.ok('id' in sent, JSON.stringify(sent));
    assert.equal(sent.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(textOf(sent.artifacts[0]?.parts[0]), '4');
    const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    assert.equal(got.id, sent.id);
    const events = await collect(client.sendMessageStream(textMessage('streamed')));
    assert.deepEqual(
      events.map((e) => e.payload?.$case),
      ['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate'],
    );
    const raw = rawGrpc(`127.0.0.1:${grpc.port}`);
    try {
      const refused = await raw.unary('GetTask', { tenant: 'agent', id: 'x' }, {});
      assert.equal(refused.error?.code, Code.FAILED_PRECONDITION);
    } finally {
      raw.close();
    }
  } finally {
    await mock.close();
  }
});

/** A v1.0 card naming only a gRPC interface at `url` (the mock's own card names no port it serves). */
const exampleCardFor = (url: string) => ({
  name: 'agent',
  description: 'agent assistant',
  supportedInterfaces: [{ url, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 'agent' }],
  version: '0.1.0',
  capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false, extensions: [] },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  securitySchemes: {},
  securityRequirements: [],
  signatures: [],
});
