// Bad input over the A2A v1.0 HTTP+JSON and gRPC bindings gets the specification's error —
// a google.rpc.Status with the HTTP status of its table, or the gRPC code with an ErrorInfo in
// grpc-status-details-bin — and changes nothing; tenants, API keys and http.disable_a2a hold on
// both bindings as on JSON-RPC. Raw requests, for what the SDK's client cannot send.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { status as Code, type ServiceError } from '@grpc/grpc-js';
import path from 'node:path';
import { ROOT, startTestServer, type TestServer } from '../../support/server.ts';
import { fixtureGraphs } from './harness.ts';
import { grpcErrorInfo, rawGrpc as rawGrpcAt } from './grpcRaw.ts';

const V1 = { 'A2A-Version': '1.0' };
let server: TestServer;
let grpcPort: number;

before(async () => {
  server = await startTestServer({ project: { graphs: fixtureGraphs }, env: { AGENTPLANE_GRPC_PORT: '0' } });
  const grpc = await server.grpc;
  assert.ok('port' in grpc);
  grpcPort = grpc.port;
});
after(() => server.close());

type Dict = Record<string, any>;

async function rest(path: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number; type: string | null; body: Dict }> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    if (!headers.has('content-type')) headers.set('content-type', 'application/a2a+json');
    body = JSON.stringify(init.json);
  }
  const res = await fetch(`${server.url}/a2a/echo/v1${path}`, { ...init, headers, body });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), body: text ? JSON.parse(text) : {} };
}

/** The google.rpc.Status of a REST answer: its code name and the reason of its ErrorInfo. */
function googleRpc(answer: { status: number; type: string | null; body: Dict }, status: number, code: string, reason?: string): Dict {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.type, 'application/a2a+json');
  const { error } = answer.body;
  assert.equal(error.code, status);
  assert.equal(error.status, code);
  assert.equal(typeof error.message, 'string');
  const info = (error.details as Dict[]).find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  if (reason) assert.deepEqual([info?.reason, info?.domain], [reason, 'a2a-protocol.org']);
  return error;
}

const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });

async function taskCount(headers: Dict = {}): Promise<number> {
  const listed = await rest('/tasks', { headers: { ...V1, ...headers } });
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  return listed.body.totalSize;
}

describe('HTTP+JSON', () => {
  test('bad input: each gets its google.rpc.Status and nothing is stored', async () => {
    const before = await taskCount();
    googleRpc(await rest('/message:send', { method: 'POST', json: message('no version') }), 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED');
    googleRpc(
      await rest('/message:send', { method: 'POST', headers: { 'A2A-Version': '0.3' }, json: message('0.3') }),
      400,
      'FAILED_PRECONDITION',
      'VERSION_NOT_SUPPORTED',
    );
    googleRpc(
      await rest('/message:send', { method: 'POST', headers: { 'A2A-Version': '2.0' }, json: message('2.0') }),
      400,
      'FAILED_PRECONDITION',
      'VERSION_NOT_SUPPORTED',
    );
    googleRpc(
      await rest('/message:send', { method: 'POST', headers: { ...V1, 'content-type': 'application/a2a+json' }, body: '{"message":' }),
      400,
      'INVALID_ARGUMENT',
      'INVALID_PARAMS',
    );
    googleRpc(
      await rest('/message:send', { method: 'POST', headers: { ...V1, 'content-type': 'text/plain' }, body: '{}' }),
      400,
      'INVALID_ARGUMENT',
      'CONTENT_TYPE_NOT_SUPPORTED',
    );
    const invalid = googleRpc(
      await rest('/message:send', { method: 'POST', headers: V1, json: { message: { role: 'ROLE_USER', parts: [] } } }),
      400,
      'INVALID_ARGUMENT',
    );
    assert.ok(
      (invalid.details as Dict[]).some((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest' && d.fieldViolations.length > 0),
      JSON.stringify(invalid),
    );
    googleRpc(
      await rest('/message:send', { method: 'POST', headers: V1, json: { message: { ...message('x').message, role: 'ROLE_NOBODY' } } }),
      400,
      'INVALID_ARGUMENT',
    );
    const big = 'x'.repeat(2 * 1024 * 1024);
    googleRpc(await rest('/message:send', { method: 'POST', headers: V1, json: message(big) }), 413, 'RESOURCE_EXHAUSTED');
    googleRpc(await rest('/message:launch', { method: 'POST', headers: V1, json: message('x') }), 404, 'NOT_FOUND');
    googleRpc(await rest('/tasks', { method: 'DELETE', headers: V1 }), 405, 'UNIMPLEMENTED');
    googleRpc(await rest('/tasks?pageSize=0', { headers: V1 }), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS');
    googleRpc(await rest(`/tasks/${crypto.randomUUID()}`, { headers: V1 }), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    assert.equal(await taskCount(), before);
  });

  test('a task that ended: cancelling it is 400 TASK_NOT_CANCELABLE, a message to it 400 UNSUPPORTED_OPERATION (§5.4 of v1.0.1)', async () => {
    const sent = await rest('/message:send', { method: 'POST', headers: V1, json: message('done') });
    assert.equal(sent.body.task.status.state, 'TASK_STATE_COMPLETED');
    const { id } = sent.body.task;
    googleRpc(await rest(`/tasks/${id}:cancel`, { method: 'POST', headers: V1, json: {} }), 400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE');
    const again = { message: { ...message('again').message, taskId: id } };
    googleRpc(await rest('/message:send', { method: 'POST', headers: V1, json: again }), 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
  });

  test('the version may be a query parameter; a patch part is not considered', async () => {
    const sent = await rest('/message:send?A2A-Version=1.0', { method: 'POST', json: message('by query') });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal((await rest(`/tasks/${sent.body.task.id}`, { headers: { 'A2A-Version': '1.0.7' } })).status, 200);
  });

  test('an unknown assistant is 404', async () => {
    const unknown = await fetch(`${server.url}/a2a/no-such-graph/v1/tasks`, { headers: V1 });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as Dict).error.status, 'NOT_FOUND');
  });
});

/** An answer as a client compares it, the task id it names made neutral. */
const neutral = (answer: unknown, id: string): unknown => JSON.parse(JSON.stringify(answer ?? null).replaceAll(id, '<id>'));

/** The code and the ErrorInfo reason of a gRPC error. */
function grpcFailure(error: ServiceError | undefined, code: Code, reason?: string): void {
  assert.ok(error, 'the call fails');
  assert.equal(error.code, code, error.details);
  if (!reason) return;
  assert.deepEqual(grpcErrorInfo(error), { reason, domain: 'a2a-protocol.org' });
}

const rawGrpc = (port = grpcPort) => rawGrpcAt(`127.0.0.1:${port}`);

describe('gRPC', () => {
  test('bad input: each gets its gRPC status with its ErrorInfo, and nothing is stored', async () => {
    const grpc = rawGrpc();
    try {
      const before = await taskCount();
      const send = (request: unknown, headers?: Dict) => grpc.unary('SendMessage', { tenant: 'echo', ...(request as Dict) }, headers);
      grpcFailure((await send(message('no version'), {})).error, Code.FAILED_PRECONDITION, 'VERSION_NOT_SUPPORTED');
      grpcFailure((await send(message('0.3'), { 'a2a-version': '0.3' })).error, Code.FAILED_PRECONDITION, 'VERSION_NOT_SUPPORTED');
      grpcFailure((await send(message('2.0'), { 'a2a-version': '2.0' })).error, Code.FAILED_PRECONDITION, 'VERSION_NOT_SUPPORTED');
      // bytes that are no SendMessageRequest (a field of wire type 7), a method the service lacks, a message past the body limit
      grpcFailure((await grpc.unaryAt(`/lf.a2a.v1.A2AService/SendMessage`, Buffer.from([0x0f, 0xff, 0xff, 0xff]))).error, Code.INTERNAL);
      grpcFailure((await grpc.unaryAt(`/lf.a2a.v1.A2AService/LaunchMessage`, Buffer.alloc(0))).error, Code.UNIMPLEMENTED);
      grpcFailure((await send(message('x'.repeat(5 * 1024 * 1024)))).error, Code.RESOURCE_EXHAUSTED);
      grpcFailure((await send({ message: { role: 'ROLE_USER', parts: [] } })).error, Code.INVALID_ARGUMENT);
      // a file is taken since issue 85's file parts (messages.files.test.ts), but its URL must be absolute
      grpcFailure((await send({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ url: 'a.png' }] } })).error, Code.INVALID_ARGUMENT);
      grpcFailure((await grpc.unary('GetTask', { tenant: 'echo', id: crypto.randomUUID() })).error, Code.NOT_FOUND, 'TASK_NOT_FOUND');
      grpcFailure((await grpc.unary('GetTask', { tenant: 'no-such-graph', id: crypto.randomUUID() })).error, Code.NOT_FOUND);
      // a task that ended: FAILED_PRECONDITION for a cancel and for a message to it (§5.4 of v1.0.1)
      const done = (await send(message('done'))).value!.task;
      grpcFailure((await grpc.unary('CancelTask', { tenant: 'echo', id: done.id })).error, Code.FAILED_PRECONDITION, 'TASK_NOT_CANCELABLE');
      grpcFailure((await send({ message: { ...message('again').message, taskId: done.id } })).error, Code.FAILED_PRECONDITION, 'UNSUPPORTED_OPERATION');
      assert.equal(await taskCount(), before + 1);
    } finally {
      grpc.close();
    }
  });

  test('a message over the body limit (AGENTPLANE_MAX_BODY_BYTES, 1 MiB by default) is refused on gRPC as on HTTP+JSON; one under it is taken on both', async () => {
    const grpc = rawGrpc();
    try {
      const before = await taskCount();
      // 1.5 MiB: within grpc-js's own 4 MiB default, which let it through
      const over = message('x'.repeat(1.5 * 1024 * 1024));
      googleRpc(await rest('/message:send', { method: 'POST', headers: V1, json: over }), 413, 'RESOURCE_EXHAUSTED');
      grpcFailure((await grpc.unary('SendMessage', { tenant: 'echo', ...over })).error, Code.RESOURCE_EXHAUSTED);
      assert.equal(await taskCount(), before);
      const under = message('y'.repeat(900 * 1024));
      assert.equal((await rest('/message:send', { method: 'POST', headers: V1, json: under })).status, 200);
      const taken = await grpc.unary('SendMessage', { tenant: 'echo', ...under });
      assert.equal(taken.error, undefined, taken.error?.details);
      assert.equal(await taskCount(), before + 2);
    } finally {
      grpc.close();
    }
  });
});

test('http.disable_a2a: the HTTP+JSON paths are 404 and no gRPC port serves', async () => {
  const off = await startTestServer({ project: { graphs: fixtureGraphs, http: { disable_a2a: true } }, env: { AGENTPLANE_GRPC_PORT: '0' } });
  try {
    assert.deepEqual(await off.grpc, { off: true });
    const res = await fetch(`${off.url}/a2a/echo/v1/message:send`, {
      method: 'POST',
      headers: { ...V1, 'content-type': 'application/json' },
      body: JSON.stringify(message('x')),
    });
    assert.equal(res.status, 404);
  } finally {
    await off.close();
  }
});

describe('tenants (agent-server auth on): the same rules on both bindings', () => {
  const keyA = `a-${crypto.randomUUID()}`;
  const keyB = `b-${crypto.randomUUID()}`;
  let authed: TestServer;
  let port: number;
  before(async () => {
    authed = await startTestServer({
      project: { graphs: fixtureGraphs },
      env: {
        AGENTPLANE_GRPC_PORT: '0',
        AGENTPLANE_AGENT_SERVER_AUTH: '1',
        AGENTPLANE_API_KEYS: `${keyA}:${crypto.randomUUID()},${keyB}:${crypto.randomUUID()}`,
      },
    });
    const grpc = await authed.grpc;
    assert.ok('port' in grpc);
    port = grpc.port;
  });
  after(() => authed.close());

  const restAs = async (key: string | null, path: string, init: RequestInit = {}) => {
    const res = await fetch(`${authed.url}/a2a/echo/v1${path}`, {
      ...init,
      headers: { ...V1, 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    });
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Dict };
  };

  test("HTTP+JSON: a tenant's task is unknown to another tenant, a call without a key or with an unknown one is 401", async () => {
    const sent = await restAs(keyA, '/message:send', { method: 'POST', body: JSON.stringify(message('mine')) });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const id = sent.body.task.id;
    assert.equal((await restAs(keyA, `/tasks/${id}`)).status, 200);
    const theirs = await restAs(keyB, `/tasks/${id}`);
    googleRpc(theirs, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    // word for word the answer to a task that does not exist, but for the id it names
    const missing = crypto.randomUUID();
    assert.deepEqual(neutral(theirs, id), neutral(await restAs(keyB, `/tasks/${missing}`), missing));
    googleRpc(await restAs(keyB, `/tasks/${id}:cancel`, { method: 'POST' }), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    assert.deepEqual((await restAs(keyB, '/tasks')).body.tasks, []);
    googleRpc(await restAs(null, `/tasks/${id}`), 401, 'UNAUTHENTICATED');
    googleRpc(await restAs('not-a-key', `/tasks/${id}`), 401, 'UNAUTHENTICATED');
  });

  test("gRPC: a tenant's task is unknown to another tenant, a call without a key or with an unknown one is UNAUTHENTICATED", async () => {
    const grpc = rawGrpc(port);
    try {
      const as = (key: string | null) => ({ 'a2a-version': '1.0', ...(key ? { 'x-api-key': key } : {}) });
      const sent = await grpc.unary('SendMessage', { tenant: 'echo', ...message('mine') }, as(keyA));
      assert.ok(sent.value, sent.error?.details);
      const id = sent.value.task.id;
      assert.equal((await grpc.unary('GetTask', { tenant: 'echo', id }, as(keyA))).value?.id, id);
      const theirs = (await grpc.unary('GetTask', { tenant: 'echo', id }, as(keyB))).error;
      grpcFailure(theirs, Code.NOT_FOUND, 'TASK_NOT_FOUND');
      const missing = crypto.randomUUID();
      const absent = (await grpc.unary('GetTask', { tenant: 'echo', id: missing }, as(keyB))).error;
      assert.deepEqual(
        [theirs!.code, neutral(theirs!.details, id), neutral(grpcErrorInfo(theirs!), id)],
        [absent!.code, neutral(absent!.details, missing), neutral(grpcErrorInfo(absent!), missing)],
      );
      grpcFailure((await grpc.unary('CancelTask', { tenant: 'echo', id }, as(keyB))).error, Code.NOT_FOUND, 'TASK_NOT_FOUND');
      assert.deepEqual((await grpc.unary('ListTasks', { tenant: 'echo' }, as(keyB))).value?.tasks ?? [], []);
      grpcFailure((await grpc.unary('GetTask', { tenant: 'echo', id }, as(null))).error, Code.UNAUTHENTICATED);
      grpcFailure((await grpc.unary('GetTask', { tenant: 'echo', id }, as('not-a-key'))).error, Code.UNAUTHENTICATED);
      // the same task over HTTP+JSON, for its owner
      assert.equal((await restAs(keyA, `/tasks/${id}`)).body.id, id);
    } finally {
      grpc.close();
    }
  });
});

describe('a tenant over AGENTPLANE_MAX_REQUESTS_PER_SECOND is held to it on gRPC as on HTTP (issue 83)', () => {
  let limited: TestServer;
  let port: number;
  const key = `key-${crypto.randomUUID()}`;
  before(async () => {
    limited = await startTestServer({
      project: { graphs: fixtureGraphs },
      env: {
        AGENTPLANE_GRPC_PORT: '0',
        AGENTPLANE_AGENT_SERVER_AUTH: '1',
        AGENTPLANE_API_KEYS: `${key}:${crypto.randomUUID()}`,
        AGENTPLANE_MAX_REQUESTS_PER_SECOND: '3',
        AGENTPLANE_MAX_REQUEST_BURST: '3',
      },
    });
    const grpc = await limited.grpc;
    assert.ok('port' in grpc);
    port = grpc.port;
  });
  after(() => limited.close());

  test('calls past the burst are RESOURCE_EXHAUSTED naming the setting', async () => {
    const grpc = rawGrpc(port);
    try {
      const errors = [];
      for (let i = 0; i < 6; i++) errors.push((await grpc.unary('ListTasks', { tenant: 'echo' }, { 'a2a-version': '1.0', 'x-api-key': key })).error);
      assert.equal(errors.slice(0, 3).filter(Boolean).length, 0);
      const refused = errors.find((e) => e?.code === Code.RESOURCE_EXHAUSTED);
      assert.ok(refused, JSON.stringify(errors.map((e) => e?.code)));
      assert.match(refused.details, /AGENTPLANE_MAX_REQUESTS_PER_SECOND/);
    } finally {
      grpc.close();
    }
  });
});

describe("the project's custom auth (auth.path): the same door on both bindings", () => {
  let custom: TestServer;
  let port: number;
  before(async () => {
    custom = await startTestServer({
      project: { graphs: fixtureGraphs, auth: { path: path.join(ROOT, 'test/fixtures/auth/by-user.ts:auth') } },
      env: { AGENTPLANE_GRPC_PORT: '0' },
    });
    const grpc = await custom.grpc;
    assert.ok('port' in grpc);
    port = grpc.port;
  });
  after(() => custom.close());

  const restAs = async (user: string | null, path: string, init: RequestInit = {}) => {
    const res = await fetch(`${custom.url}/a2a/echo/v1${path}`, {
      ...init,
      headers: { ...V1, 'content-type': 'application/json', ...(user ? { authorization: user } : {}) },
    });
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Dict };
  };
  const listAs = async (user: string) => (await restAs(user, '/tasks')).body.totalSize as number;

  test('HTTP+JSON: refused without the credentials the handler asks for, or with ones it rejects; nothing is stored', async () => {
    const before = await listAs('Bearer user-a');
    googleRpc(await restAs(null, '/message:send', { method: 'POST', body: JSON.stringify(message('x')) }), 401, 'UNAUTHENTICATED');
    googleRpc(await restAs('Bearer nobody', '/message:send', { method: 'POST', body: JSON.stringify(message('x')) }), 401, 'UNAUTHENTICATED');
    googleRpc(await restAs('Bearer nobody', '/tasks'), 401, 'UNAUTHENTICATED');
    assert.equal(await listAs('Bearer user-a'), before);
    const sent = await restAs('Bearer user-a', '/message:send', { method: 'POST', body: JSON.stringify(message('mine')) });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal((await restAs('Bearer user-a', `/tasks/${sent.body.task.id}`)).body.id, sent.body.task.id);
  });

  test("one user's task is unknown to another, on every binding: the same answer as a missing task, absent from their list, its context not theirs to continue", async () => {
    const sent = await restAs('Bearer user-a', '/message:send', { method: 'POST', body: JSON.stringify(message('secret of a')) });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const { id, contextId } = sent.body.task as { id: string; contextId: string };
    const missing = crypto.randomUUID();
    // HTTP+JSON: the same status, code and reason as a task that does not exist
    const asB = googleRpc(await restAs('Bearer user-b', `/tasks/${id}`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    const absent = googleRpc(await restAs('Bearer user-b', `/tasks/${missing}`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    assert.equal(asB.message.replace(id, '<id>'), absent.message.replace(missing, '<id>'));
    googleRpc(await restAs('Bearer user-b', `/tasks/${id}:cancel`, { method: 'POST', body: '{}' }), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    const listed = (await restAs('Bearer user-b', '/tasks')).body.tasks as { id: string }[];
    assert.ok(!listed.some((t) => t.id === id));
    assert.ok(((await restAs('Bearer user-a', '/tasks')).body.tasks as { id: string }[]).some((t) => t.id === id));
    // a follow-up naming the task, or a new message in its context, does not reach a's thread
    googleRpc(
      await restAs('Bearer user-b', '/message:send', { method: 'POST', body: JSON.stringify({ message: { ...message('me too').message, taskId: id } }) }),
      404,
      'NOT_FOUND',
      'TASK_NOT_FOUND',
    );
    const intoContext = await restAs('Bearer user-b', '/message:send', {
      method: 'POST',
      body: JSON.stringify({ message: { ...message('me too').message, contextId } }),
    });
    assert.equal(intoContext.status, 400, JSON.stringify(intoContext.body));
    // JSON-RPC
    const rpc = await fetch(`${custom.url}/a2a/echo`, {
      method: 'POST',
      headers: { ...V1, 'content-type': 'application/json', authorization: 'Bearer user-b' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }),
    });
    assert.equal(((await rpc.json()) as Dict).error?.code, -32001);
    // gRPC
    const grpc = rawGrpc(port);
    try {
      const as = (user: string) => ({ 'a2a-version': '1.0', authorization: user });
      grpcFailure((await grpc.unary('GetTask', { tenant: 'echo', id }, as('Bearer user-b'))).error, Code.NOT_FOUND);
      assert.equal((await grpc.unary('GetTask', { tenant: 'echo', id }, as('Bearer user-a'))).value?.id, id);
    } finally {
      grpc.close();
    }
    // a's conversation holds nothing of b's
    const history = ((await restAs('Bearer user-a', `/tasks/${id}`)).body.history ?? []) as Dict[];
    assert.ok(!JSON.stringify(history).includes('me too'));
  });

  test('gRPC: refused (UNAUTHENTICATED) without the credentials the handler asks for, or with ones it rejects; nothing is stored', async () => {
    const grpc = rawGrpc(port);
    try {
      const before = await listAs('Bearer user-a');
      const as = (user: string | null) => ({ 'a2a-version': '1.0', ...(user ? { authorization: user } : {}) });
      grpcFailure((await grpc.unary('SendMessage', { tenant: 'echo', ...message('x') }, as(null))).error, Code.UNAUTHENTICATED);
      grpcFailure((await grpc.unary('SendMessage', { tenant: 'echo', ...message('x') }, as('Bearer nobody'))).error, Code.UNAUTHENTICATED);
      grpcFailure((await grpc.stream('SendStreamingMessage', { tenant: 'echo', ...message('x') }, as('Bearer nobody'))).error, Code.UNAUTHENTICATED);
      grpcFailure((await grpc.unary('ListTasks', { tenant: 'echo' }, as(null))).error, Code.UNAUTHENTICATED);
      assert.equal(await listAs('Bearer user-a'), before);
      const sent = await grpc.unary('SendMessage', { tenant: 'echo', ...message('mine') }, as('Bearer user-a'));
      assert.ok(sent.value, sent.error?.details);
      assert.equal((await grpc.unary('GetTask', { tenant: 'echo', id: sent.value.task.id }, as('Bearer user-a'))).value?.id, sent.value.task.id);
    } finally {
      grpc.close();
    }
  });
});
