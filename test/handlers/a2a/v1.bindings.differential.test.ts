// A2A v1.0 differential over the HTTP+JSON (REST) and gRPC bindings: the same scenarios sent to
// @a2a-js/sdk 1.3.0's own servers for those bindings (its express restHandler and its gRPC
// service, over the echo and interrupting reference agents of a2aReference.ts, started here on
// loopback) and to agentplane (the echo fixture graph and the approval example graph), answers
// normalised (ids, timestamps and free text out: HTTP status, google.rpc code name, ErrorInfo
// reason and domain, gRPC status code, result kind and state) and compared. The SDK's default
// client (ClientFactory over each card) drives both as well. Deliberate differences are listed in
// a2a-v1-deliberate-differences.json, each with its reason, and checked to still hold.
// A2A_DIFF_PRINT=1 prints both normalised answers of every scenario.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { Server, ServerCredentials, status as Code, type ServiceError } from '@grpc/grpc-js';
import { TaskState, type AgentInterface, type StreamResponse } from '@a2a-js/sdk-v1';
import { ClientFactory, ClientFactoryOptions, RestTransportFactory, type Client } from '@a2a-js/sdk-v1/client';
import { GrpcTransportFactory } from '@a2a-js/sdk-v1/client/grpc';
import { agentCardHandler, restHandler, UserBuilder } from '@a2a-js/sdk-v1/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk-v1/server/grpc';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { listTasksRequest, sendRequest, text, userMessage, v1Graphs } from './v1harness.ts';
import { grpcErrorInfo, rawGrpc } from './grpcRaw.ts';
import { compareWithReference as compare, referenceHandler } from '../../differential/a2aReference.ts';

// express comes with the SDK's server (its peer); it has no types here, and only use() and the request listener are needed
type ExpressApp = http.RequestListener & { use(path: string, handler: unknown): void };
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

type Dict = Record<string, any>;
const AGENTS = { echo: false, approval: true } as const;
type Agent = keyof typeof AGENTS;

let reference: http.Server;
let referenceUrl = '';
let referenceGrpc: Server;
let referenceGrpcPort = 0;
let server: TestServer;
let agentplaneGrpcPort = 0;

before(async () => {
  const app = express();
  const services: Record<string, Dict> = {};
  for (const [name, interrupting] of Object.entries(AGENTS)) {
    const handler = referenceHandler(name, {
      interrupting,
      push: true,
      interfaces: () =>
        [
          { url: `${referenceUrl}/${name}/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
          { url: `127.0.0.1:${referenceGrpcPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: name },
        ] as AgentInterface[],
    });
    app.use(`/${name}/card`, agentCardHandler({ agentCardProvider: handler }));
    app.use(`/${name}/v1`, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    services[name] = grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication });
  }
  reference = http.createServer(app);
  await new Promise<void>((resolve) => reference.listen(0, '127.0.0.1', resolve));
  referenceUrl = `http://127.0.0.1:${(reference.address() as AddressInfo).port}`;
  // one gRPC port for both reference agents, the request's tenant naming the agent (as agentplane's tenant names the assistant)
  referenceGrpc = new Server();
  const byTenant: Dict = {};
  for (const method of Object.keys(A2AService)) {
    byTenant[method] = (call: Dict, callback: unknown) => (services[call.request?.tenant] ?? services.echo)[method](call, callback);
  }
  referenceGrpc.addService(A2AService, byTenant);
  referenceGrpcPort = await new Promise<number>((resolve, reject) =>
    referenceGrpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
  );
  server = await startTestServer({ project: { graphs: v1Graphs }, env: { AGENTPLANE_GRPC_PORT: '0' } });
  const grpc = await server.grpc;
  assert.ok('port' in grpc, `the gRPC port serves: ${JSON.stringify(grpc)}`);
  agentplaneGrpcPort = grpc.port;
});
after(async () => {
  await new Promise((resolve) => reference.close(resolve));
  referenceGrpc.forceShutdown();
  await server.close();
});

type TargetName = 'reference' | 'agentplane';
const restBase = (target: TargetName, agent: Agent) => (target === 'reference' ? `${referenceUrl}/${agent}/v1` : `${server.url}/a2a/${agent}/v1`);
const grpcAddress = (target: TargetName) => `127.0.0.1:${target === 'reference' ? referenceGrpcPort : agentplaneGrpcPort}`;
const cardAt = (target: TargetName, agent: Agent): [string, string] =>
  target === 'reference' ? [referenceUrl, `/${agent}/card`] : [server.url, `/.well-known/agent-card.json?assistant_id=${agent}`];

/** What a client relies on of an answer (the same for both bindings once the transport is peeled off). */
type Answer = { error: Dict } | { result: unknown } | { events: string[]; error?: Dict };

/** A result: its kind and state, the reply text; ids, timestamps and free text out. */
function result(value: Dict | undefined): unknown {
  if (!value || Object.keys(value).length === 0) return 'empty';
  const task = value.task ?? (value.status && value.id ? value : undefined);
  if (task) {
    const artifact = task.artifacts?.[0]?.parts?.[0]?.text;
    return { task: task.status.state, ...(artifact !== undefined ? { artifact } : {}) };
  }
  if (value.message) return { message: value.message.role };
  if (value.tasks) return { tasks: value.tasks.map((t: Dict) => t.status.state), morePages: !!value.nextPageToken, pageSize: value.pageSize ?? null };
  if (value.configs) return { configs: value.configs.map((c: Dict) => c.url) };
  if (value.url) return { config: value.url, token: value.token ?? null, taskIdSet: !!value.taskId, idSet: !!value.id };
  return { keys: Object.keys(value).sort() };
}

const eventOf = (event: Dict) => {
  const [kind] = Object.keys(event);
  const body = event[kind!];
  const state = body?.status?.state;
  // a status update that carries a message (the reply so far, a question) says so
  return state ? `${kind}:${state}${kind === 'statusUpdate' && body.status.message ? '+message' : ''}` : kind!;
};

/** One binding, driven raw: each operation of the scenarios, and the inputs a client library never sends. */
interface Driver {
  send(agent: Agent, body: unknown, headers?: Dict): Promise<Answer>;
  stream(agent: Agent, body: unknown): Promise<Answer>;
  get(agent: Agent, id: string): Promise<Answer>;
  list(agent: Agent, query: Dict): Promise<Answer>;
  cancel(agent: Agent, id: string): Promise<Answer>;
  /** The subscription's events; `first` stops after the first one (a task that does not end). */
  subscribe(agent: Agent, id: string, first?: boolean): Promise<Answer>;
  pushCreate(agent: Agent, taskId: string, config: Dict): Promise<Answer>;
  pushGet(agent: Agent, taskId: string, id: string): Promise<Answer>;
  pushList(agent: Agent, taskId: string): Promise<Answer>;
  pushDelete(agent: Agent, taskId: string, id: string): Promise<Answer>;
  extendedCard(agent: Agent): Promise<Answer>;
  /** A body that is no request of the binding's encoding. */
  unparseable(agent: Agent): Promise<Answer>;
  /** A method the binding does not have. */
  unknownMethod(agent: Agent): Promise<Answer>;
}

const V1 = { 'A2A-Version': '1.0' };

function restDriver(target: TargetName): Driver {
  async function call(agent: Agent, method: string, path: string, body?: unknown, headers: Dict = V1): Promise<Answer> {
    const res = await fetch(`${restBase(target, agent)}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/a2a+json' } : {}), ...headers },
      body: typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    const textBody = await res.text();
    let json: Dict | undefined;
    try {
      json = textBody ? JSON.parse(textBody) : undefined;
    } catch {
      json = undefined;
    }
    if (res.status >= 400) return { error: restError(res, json) };
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) return sse(textBody);
    return { result: { http: res.status, ...(result(json) as Dict) } };
  }
  async function subscribe(agent: Agent, path: string, body: unknown, first: boolean): Promise<Answer> {
    const abort = new AbortController();
    const res = await fetch(`${restBase(target, agent)}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', accept: 'text/event-stream', ...V1 },
      body: JSON.stringify(body),
      signal: abort.signal,
    });
    if (res.status >= 400 || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      const textBody = await res.text();
      let json: Dict | undefined;
      try {
        json = JSON.parse(textBody);
      } catch {
        json = undefined;
      }
      return { error: restError(res, json) };
    }
    if (!first) return sse(await res.text());
    const reader = res.body!.getReader();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += new TextDecoder().decode(value);
      if (/^data: .*\n/m.test(buffered)) break;
    }
    abort.abort();
    const answer = sse(buffered);
    return { events: answer.events.slice(0, 1) };
  }
  return {
    send: (agent, body, headers) => call(agent, 'POST', '/message:send', body, headers ?? V1),
    stream: (agent, body) => subscribe(agent, '/message:stream', body, false),
    get: (agent, id) => call(agent, 'GET', `/tasks/${encodeURIComponent(id)}`),
    list: (agent, query) => call(agent, 'GET', `/tasks?${new URLSearchParams(query)}`),
    cancel: (agent, id) => call(agent, 'POST', `/tasks/${encodeURIComponent(id)}:cancel`, {}),
    subscribe: (agent, id, first = false) => subscribe(agent, `/tasks/${encodeURIComponent(id)}:subscribe`, {}, first),
    pushCreate: (agent, taskId, config) => call(agent, 'POST', `/tasks/${taskId}/pushNotificationConfigs`, { taskId, ...config }),
    pushGet: (agent, taskId, id) => call(agent, 'GET', `/tasks/${taskId}/pushNotificationConfigs/${id}`),
    pushList: (agent, taskId) => call(agent, 'GET', `/tasks/${taskId}/pushNotificationConfigs`),
    pushDelete: (agent, taskId, id) => call(agent, 'DELETE', `/tasks/${taskId}/pushNotificationConfigs/${id}`),
    extendedCard: (agent) => call(agent, 'GET', '/extendedAgentCard'),
    unparseable: (agent) => call(agent, 'POST', '/message:send', '{"message":'),
    unknownMethod: (agent) => call(agent, 'POST', '/message:launch', {}),
  };
}

/** A REST error: the HTTP status, the google.rpc.Status code name, its ErrorInfo reason and domain (or what came instead). */
function restError(res: Response, json: Dict | undefined): Dict {
  const error = json?.error;
  if (!error) return { http: res.status, body: json === undefined ? 'not JSON' : 'no google.rpc.Status' };
  const info = (error.details as Dict[] | undefined)?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  return { http: res.status, code: error.code, status: error.status, reason: info?.reason ?? null, domain: info?.domain ?? null };
}

function sse(body: string): { events: string[]; error?: Dict } {
  const data = body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Dict);
  const failed = data.find((d) => d.error);
  const events = data.filter((d) => !d.error).map(eventOf);
  return failed ? { events, error: { status: failed.error.status, reason: null } } : { events };
}

function grpcError(error: ServiceError): Dict {
  let info: Dict | undefined;
  try {
    info = grpcErrorInfo(error);
  } catch {
    info = { reason: 'undecodable details' };
  }
  return { grpc: Code[error.code], reason: info?.reason ?? null, domain: info?.domain ?? null };
}

function grpcDriver(target: TargetName): Driver {
  const at = (agent: Agent, request: Dict = {}) => ({ tenant: agent, ...request });
  const unary = async (method: string, request: unknown, headers?: Dict): Promise<Answer> => {
    const client = rawGrpc(grpcAddress(target));
    try {
      const answer = await client.unary(method, request, headers);
      return answer.error ? { error: grpcError(answer.error) } : { result: result(answer.value) };
    } finally {
      client.close();
    }
  };
  const stream = async (method: string, request: unknown, first = false): Promise<Answer> => {
    const client = rawGrpc(grpcAddress(target));
    try {
      const answer = await client.stream(method, request, undefined, (events) => first && events.length > 0);
      const events = answer.events.map(eventOf);
      if (answer.error && events.length === 0) return { error: grpcError(answer.error) };
      return answer.error ? { events, error: grpcError(answer.error) } : { events };
    } finally {
      client.close();
    }
  };
  const bytes = async (path: string, body: Buffer): Promise<Answer> => {
    const client = rawGrpc(grpcAddress(target));
    try {
      const answer = await client.unaryAt(path, body);
      return answer.error ? { error: grpcError(answer.error) } : { result: answer.value };
    } finally {
      client.close();
    }
  };
  return {
    send: (agent, body, headers) =>
      unary('SendMessage', at(agent, body as Dict), headers && Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))),
    stream: (agent, body) => stream('SendStreamingMessage', at(agent, body as Dict)),
    get: (agent, id) => unary('GetTask', at(agent, { id })),
    list: (agent, query) => unary('ListTasks', at(agent, { ...query, ...(query.pageSize ? { pageSize: Number(query.pageSize) } : {}) })),
    cancel: (agent, id) => unary('CancelTask', at(agent, { id })),
    subscribe: (agent, id, first) => stream('SubscribeToTask', at(agent, { id }), first),
    pushCreate: (agent, taskId, config) => unary('CreateTaskPushNotificationConfig', at(agent, { taskId, ...config })),
    pushGet: (agent, taskId, id) => unary('GetTaskPushNotificationConfig', at(agent, { taskId, id })),
    pushList: (agent, taskId) => unary('ListTaskPushNotificationConfigs', at(agent, { taskId })),
    pushDelete: (agent, taskId, id) => unary('DeleteTaskPushNotificationConfig', at(agent, { taskId, id })),
    extendedCard: (agent) => unary('GetExtendedAgentCard', at(agent)),
    // a field tag of wire type 7, which no protobuf message has
    unparseable: () => bytes('/lf.a2a.v1.A2AService/SendMessage', Buffer.from([0x0f, 0xff, 0xff, 0xff])),
    unknownMethod: () => bytes('/lf.a2a.v1.A2AService/LaunchMessage', Buffer.alloc(0)),
  };
}

const message = (value: string, ids: Dict = {}) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: value }], ...ids } });
const taskOf = (answer: Answer): Dict => {
  assert.ok('result' in answer, JSON.stringify(answer));
  return answer.result as Dict;
};

/** A task's ids out of a raw send; the drivers normalise, so the scenarios that need ids send once more without normalising. */
async function sent(binding: Binding, target: TargetName, agent: Agent, text = 'one'): Promise<{ id: string; contextId: string }> {
  if (binding === 'HTTP+JSON') {
    const res = await fetch(`${restBase(target, agent)}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', ...V1 },
      body: JSON.stringify(message(text)),
    });
    const body = (await res.json()) as Dict;
    return { id: body.task.id, contextId: body.task.contextId };
  }
  const client = rawGrpc(grpcAddress(target));
  try {
    const answer = await client.unary('SendMessage', { tenant: agent, ...message(text) });
    return { id: answer.value!.task.id, contextId: answer.value!.task.contextId };
  } finally {
    client.close();
  }
}

const BINDINGS = ['HTTP+JSON', 'GRPC'] as const;
type Binding = (typeof BINDINGS)[number];
const driverOf = (binding: Binding, target: TargetName) => (binding === 'HTTP+JSON' ? restDriver(target) : grpcDriver(target));

type Scenario = { name: string; run: (d: Driver, binding: Binding, target: TargetName) => Promise<unknown> };

const HOOK = { url: 'https://hooks.example.com/a2a', token: 'tok' };
const BIG = 'x'.repeat(5 * 1024 * 1024);

const scenarios: Scenario[] = [
  { name: 'SendMessage with text', run: (d) => d.send('echo', message('hello')) },
  { name: 'SendStreamingMessage', run: (d) => d.stream('echo', message('streamed')) },
  {
    name: 'GetTask of a sent task',
    run: async (d, b, t) => d.get('echo', (await sent(b, t, 'echo')).id),
  },
  { name: 'GetTask of an unknown id', run: (d) => d.get('echo', randomUUID()) },
  {
    name: 'ListTasks of a context, two a page',
    run: async (d, b, t) => {
      const first = await sent(b, t, 'echo');
      for (const text of ['two', 'three']) taskOf(await d.send('echo', message(text, { contextId: first.contextId })));
      const page = await d.list('echo', { contextId: first.contextId, pageSize: '2' });
      return page;
    },
  },
  {
    name: 'ListTasks of a context, the last page',
    run: async (d, b, t) => {
      const first = await sent(b, t, 'echo');
      for (const text of ['two', 'three']) taskOf(await d.send('echo', message(text, { contextId: first.contextId })));
      const raw = await rawList(b, t, { contextId: first.contextId, pageSize: '2' });
      return d.list('echo', { contextId: first.contextId, pageSize: '2', pageToken: raw.nextPageToken });
    },
  },
  { name: 'CancelTask of an unknown id', run: (d) => d.cancel('echo', randomUUID()) },
  { name: 'CancelTask of a completed task', run: async (d, b, t) => d.cancel('echo', (await sent(b, t, 'echo')).id) },
  { name: 'SubscribeToTask of a completed task', run: async (d, b, t) => d.subscribe('echo', (await sent(b, t, 'echo')).id) },
  { name: 'SubscribeToTask of an unknown id', run: (d) => d.subscribe('echo', randomUUID()) },
  {
    name: 'a message to a completed task',
    run: async (d, b, t) => {
      const { id, contextId } = await sent(b, t, 'echo');
      return d.send('echo', message('two', { taskId: id, contextId }));
    },
  },
  { name: 'an interrupting agent asks for input', run: (d) => d.send('approval', message('email bob about lunch')) },
  {
    name: 'SubscribeToTask of a waiting task: the task first',
    run: async (d, b, t) => d.subscribe('approval', (await sent(b, t, 'approval', 'email bob')).id, true),
  },
  {
    name: 'the next message to the waiting task completes it',
    run: async (d, b, t) => {
      const { id, contextId } = await sent(b, t, 'approval', 'email bob');
      const answer = await d.send('approval', {
        message: { ...message('').message, parts: [{ data: { decisions: [{ type: 'approve' }] } }], taskId: id, contextId },
      });
      return { state: (taskOf(answer) as Dict).task };
    },
  },
  {
    name: 'CancelTask of a waiting task',
    run: async (d, b, t) => d.cancel('approval', (await sent(b, t, 'approval', 'email bob')).id),
  },
  {
    name: 'CancelTask of a canceled task',
    run: async (d, b, t) => {
      const { id } = await sent(b, t, 'approval', 'email bob');
      taskOf(await d.cancel('approval', id));
      await new Promise((resolve) => setTimeout(resolve, 200));
      return d.cancel('approval', id);
    },
  },
  {
    name: 'push config: create, get, list, delete, get again',
    run: async (d, b, t) => {
      const { id } = await sent(b, t, 'approval', 'email bob');
      const created = await d.pushCreate('approval', id, { ...HOOK, id: 'hook-1' });
      return {
        created,
        got: await d.pushGet('approval', id, 'hook-1'),
        listed: await d.pushList('approval', id),
        deleted: await d.pushDelete('approval', id, 'hook-1'),
        gone: await d.pushGet('approval', id, 'hook-1'),
      };
    },
  },
  { name: 'push config of an unknown task', run: (d) => d.pushCreate('echo', randomUUID(), HOOK) },
  { name: 'GetExtendedAgentCard without an extended card', run: (d) => d.extendedCard('echo') },
  { name: 'bad params: a message without messageId nor parts', run: (d) => d.send('echo', { message: { role: 'ROLE_USER', parts: [] } }) },
  { name: 'no A2A-Version (0.3)', run: (d) => d.send('echo', message('x'), {}) },
  { name: 'A2A-Version 2.0', run: (d) => d.send('echo', message('x'), { 'A2A-Version': '2.0' }) },
  { name: 'an unparseable body', run: (d) => d.unparseable('echo') },
  { name: 'an unknown method', run: (d) => d.unknownMethod('echo') },
  { name: 'a 5 MiB text part', run: (d) => d.send('echo', message(BIG)) },
];

async function rawList(binding: Binding, target: TargetName, query: Dict): Promise<Dict> {
  if (binding === 'HTTP+JSON') return (await fetch(`${restBase(target, 'echo')}/tasks?${new URLSearchParams(query)}`, { headers: V1 })).json() as Promise<Dict>;
  const client = rawGrpc(grpcAddress(target));
  try {
    return (await client.unary('ListTasks', { tenant: 'echo', ...query, pageSize: Number(query.pageSize) })).value!;
  } finally {
    client.close();
  }
}

for (const binding of BINDINGS) {
  describe(`A2A v1.0 over ${binding}: agentplane answers as the SDK 1.3.0 reference server`, () => {
    for (const scenario of scenarios) {
      test(scenario.name, async () => {
        const name = `${binding}: ${scenario.name}`;
        const ref = await scenario.run(driverOf(binding, 'reference'), binding, 'reference');
        const ours = await scenario.run(driverOf(binding, 'agentplane'), binding, 'agentplane');
        compare(name, ref, ours);
      });
    }
  });

  describe(`the SDK 1.3.0 default client over ${binding}, from each card`, () => {
    async function clientOf(target: TargetName, agent: Agent): Promise<Client> {
      const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new RestTransportFactory(), new GrpcTransportFactory()],
        preferredTransports: [binding],
      });
      const client = await new ClientFactory(options).createFromUrl(...cardAt(target, agent));
      assert.equal((client as unknown as { transport: { protocolName: string } }).transport.protocolName, binding);
      return client;
    }
    const stateName = (state: TaskState | undefined) => (state === undefined ? undefined : TaskState[state]);
    const eventName = (e: StreamResponse) =>
      e.payload?.$case === 'statusUpdate'
        ? `statusUpdate:${stateName(e.payload.value.status?.state)}${e.payload.value.status?.message ? '+message' : ''}`
        : e.payload?.$case === 'task'
          ? `task:${stateName(e.payload.value.status?.state)}`
          : e.payload?.$case;
    const failure = async (call: () => Promise<unknown>) => {
      try {
        await call();
        return 'succeeded';
      } catch (err) {
        return (err as Error).name;
      }
    };
    const clientScenarios: { name: string; run: (echo: Client, approval: Client) => Promise<unknown> }[] = [
      {
        name: 'send, get, list',
        run: async (echo) => {
          const task = await echo.sendMessage(sendRequest(userMessage([text('hi')])));
          assert.ok('id' in task);
          const got = await echo.getTask({ tenant: '', id: task.id, historyLength: undefined });
          const listed = await echo.listTasks(listTasksRequest(task.contextId, { pageSize: 1 }));
          return { sent: stateName(task.status?.state), got: stateName(got.status?.state), listed: listed.tasks.length, more: listed.nextPageToken !== '' };
        },
      },
      {
        name: 'stream',
        run: async (echo) => {
          const events: string[] = [];
          for await (const e of echo.sendMessageStream(sendRequest(userMessage([text('hi')])))) events.push(eventName(e)!);
          return events;
        },
      },
      {
        name: 'resubscribe to a waiting task, then cancel it',
        run: async (_echo, approval) => {
          const waiting = await approval.sendMessage(sendRequest(userMessage([text('email bob')])));
          assert.ok('id' in waiting);
          const events: string[] = [];
          const followed = (async () => {
            for await (const e of approval.resubscribeTask({ tenant: '', id: waiting.id })) events.push(eventName(e)!);
          })();
          while (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
          const canceled = await approval.cancelTask({ tenant: '', id: waiting.id, metadata: undefined });
          await followed;
          return { events, canceled: stateName(canceled.status?.state) };
        },
      },
      {
        name: 'errors by class',
        run: async (echo) => ({
          unknown: await failure(() => echo.getTask({ tenant: '', id: randomUUID(), historyLength: undefined })),
          unknownCancel: await failure(() => echo.cancelTask({ tenant: '', id: randomUUID(), metadata: undefined })),
        }),
      },
    ];
    for (const scenario of clientScenarios) {
      test(scenario.name, async () => {
        const run = async (target: TargetName) => scenario.run(await clientOf(target, 'echo'), await clientOf(target, 'approval'));
        compare(`${binding} client: ${scenario.name}`, await run('reference'), await run('agentplane'));
      });
    }
  });
}
