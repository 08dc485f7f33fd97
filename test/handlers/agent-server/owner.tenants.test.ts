// Tenants kept apart on the agent server (issue 11, item 8): with agent-server auth on, one
// tenant's threads, runs, assistants, crons, store items and A2A tasks are invisible to
// another's key — 404 exactly as an absent id, missing from searches and counts — while the
// owner keeps full use of them; with auth off nothing is kept apart (one shared space).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

type Caller = (pathname: string, init?: { method?: string; json?: unknown }) => Promise<{ status: number; body: any }>;

function callerOf(server: InProcessApp, key: string | null): Caller {
  return async (pathname, init = {}) => {
    const headers: Record<string, string> = {};
    if (key) headers['x-api-key'] = key;
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    const res = await server.fetch(`${server.url}${pathname}`, {
      method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* an SSE body or plain text */
    }
    return { status: res.status, body };
  };
}

const hello = { messages: [{ type: 'human', content: 'hello' }] };

describe('agent-server auth on: tenants are kept apart', () => {
  let server: InProcessApp;
  let a: Caller;
  let b: Caller;
  const tenantA = randomUUID();
  const tenantB = randomUUID();
  // what tenant A owns
  let thread: string;
  let run: string;
  let pendingThread: string;
  let pendingRun: string;
  let statelessRun: string;
  let assistant: string;
  let cron: string;
  let taskId: string;

  before(async () => {
    server = await areaApp('a2a', {
      project: { ...testProject, graphs: { ...testProject.graphs, recall: './test/fixtures/agent-server/memory.ts:plainRecall' } },
      dataDir: null,
      env: { AGENTPLANE_AGENT_SERVER_AUTH: '1', AGENTPLANE_API_KEYS: `key-a:${tenantA},key-b:${tenantB}` },
    });
    a = callerOf(server, 'key-a');
    b = callerOf(server, 'key-b');

    const created = await a('/threads', { json: { metadata: { owner: 'a', secret: 'of a' } } });
    assert.equal(created.status, 200);
    thread = created.body.thread_id;
    const waited = await a(`/threads/${thread}/runs/wait`, { json: { assistant_id: 'echo', input: hello } });
    assert.equal(waited.status, 200, JSON.stringify(waited.body));
    const runs = await a(`/threads/${thread}/runs`);
    assert.equal(runs.status, 200);
    run = runs.body[0].run_id;

    // a run that stays pending for an hour, to try bulk cancels on
    pendingThread = (await a('/threads', { json: {} })).body.thread_id;
    const pending = await a(`/threads/${pendingThread}/runs`, { json: { assistant_id: 'echo', input: hello, after_seconds: 3600 } });
    assert.equal(pending.status, 200);
    pendingRun = pending.body.run_id;

    const stateless = await a('/runs', { json: { assistant_id: 'echo', input: hello, on_completion: 'keep' } });
    assert.equal(stateless.status, 200);
    statelessRun = stateless.body.run_id;
    await a(`/threads/${stateless.body.thread_id}/runs/${statelessRun}/join`);

    const mine = await a('/assistants', { json: { graph_id: 'echo', name: 'a-private', metadata: { owner: 'a' } } });
    assert.equal(mine.status, 200);
    assistant = mine.body.assistant_id;

    const scheduled = await a(`/threads/${thread}/runs/crons`, { json: { assistant_id: 'echo', schedule: '0 0 1 1 *', input: hello } });
    assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
    cron = scheduled.body.cron_id;

    assert.equal((await a('/store/items', { method: 'PUT', json: { namespace: ['notes'], key: 'k', value: { text: 'of a' } } })).status, 204);

    const sent = await a('/a2a/echo', {
      json: {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'hi' }] } },
      },
    });
    assert.equal(sent.status, 200);
    assert.equal(sent.body.result?.kind, 'task', JSON.stringify(sent.body));
    taskId = sent.body.result.id;
  });
  after(() => server?.close());

  /** B's answer for A's id must be the answer for an id nobody has, with the id swapped. */
  async function sameAsAbsent(call: (id: string) => Promise<{ status: number; body: any }>, aId: string, expected = 404) {
    const foreign = await call(aId);
    const absentId = randomUUID();
    const absent = await call(absentId);
    assert.equal(foreign.status, expected, `foreign: ${JSON.stringify(foreign.body)}`);
    assert.equal(absent.status, expected);
    assert.deepEqual(JSON.parse(JSON.stringify(foreign.body).replaceAll(aId, 'ID')), JSON.parse(JSON.stringify(absent.body).replaceAll(absentId, 'ID')));
  }

  it("run metrics count the caller's own runs only: B sees none of A's runs of a shared graph, and A's assistant is absent for B", async () => {
    const ofA = await a('/assistants/echo/metrics');
    const ofB = await b('/assistants/echo/metrics');
    assert.equal(ofA.status, 200);
    assert.equal(ofB.status, 200);
    // A's waited, stateless and pending runs (and the A2A task's) are A's alone
    assert.ok(ofA.body.run_count >= 3 && ofA.body.by_status.pending >= 1, JSON.stringify(ofA.body));
    assert.equal(ofB.body.run_count, 0, JSON.stringify(ofB.body));
    await sameAsAbsent((id) => b(`/assistants/${id}/metrics`), assistant);
  });

  it("B cannot read, change, delete, copy, run on or stream A's thread; every answer is that of an absent id", async () => {
    const t = (suffix: string, init?: { method?: string; json?: unknown }) => (id: string) => b(`/threads/${id}${suffix}`, init);
    await sameAsAbsent(t(''), thread);
    await sameAsAbsent(t('', { method: 'PATCH', json: { metadata: { owner: 'b' } } }), thread);
    await sameAsAbsent(t('', { method: 'DELETE' }), thread);
    await sameAsAbsent(t('/state'), thread);
    await sameAsAbsent(t('/state', { json: { values: { messages: [] } } }), thread);
    await sameAsAbsent(t('/state', { method: 'PATCH', json: { metadata: { x: 1 } } }), thread);
    await sameAsAbsent(t('/history'), thread);
    await sameAsAbsent(t('/history', { json: { limit: 5 } }), thread);
    await sameAsAbsent(t('/copy', { json: {} }), thread);
    await sameAsAbsent(t('/runs'), thread);
    await sameAsAbsent(t('/runs', { json: { assistant_id: 'echo', input: hello } }), thread);
    await sameAsAbsent(t('/runs/wait', { json: { assistant_id: 'echo', input: hello } }), thread);
    await sameAsAbsent(t('/runs/stream', { json: { assistant_id: 'echo', input: hello } }), thread);
    await sameAsAbsent(t('/stream'), thread);
    await sameAsAbsent(t('/runs/crons', { json: { assistant_id: 'echo', schedule: '0 0 1 1 *' } }), thread);
    // A's run, named on A's thread
    await sameAsAbsent((id) => b(`/threads/${thread}/runs/${id}`), run);
    await sameAsAbsent((id) => b(`/threads/${thread}/runs/${id}/join`), run);
    await sameAsAbsent((id) => b(`/threads/${thread}/runs/${id}/stream`), run);
    await sameAsAbsent((id) => b(`/threads/${thread}/runs/${id}/cancel`, { json: {} }), run);
    await sameAsAbsent((id) => b(`/threads/${thread}/runs/${id}`, { method: 'DELETE' }), run);
    await sameAsAbsent((id) => b(`/runs/${id}/stream`), statelessRun);
    await sameAsAbsent((id) => b('/runs/cancel', { json: { run_ids: [id] } }), pendingRun);
    await sameAsAbsent((id) => b('/runs/cancel', { json: { thread_id: id } }), pendingThread);

    // nothing of A's changed
    const still = await a(`/threads/${thread}`);
    assert.equal(still.status, 200);
    assert.deepEqual(still.body.metadata, { owner: 'a', secret: 'of a', graph_id: 'echo', assistant_id: still.body.metadata.assistant_id });
    assert.equal((await a(`/threads/${thread}/runs`)).body.length, 1);
    assert.equal((await a(`/threads/${thread}/runs/${run}`)).status, 200);
    assert.equal((await a(`/threads/${thread}/history`)).status, 200);
  });

  it("B's searches, counts, prunes and bulk cancels see only B's own threads and runs", async () => {
    const own = await b('/threads', { json: { metadata: { owner: 'b' } } });
    assert.equal(own.status, 200);
    const found = await b('/threads/search', { json: { limit: 100 } });
    assert.deepEqual(
      found.body.map((t: any) => t.thread_id),
      [own.body.thread_id],
    );
    assert.deepEqual((await b('/threads/search', { json: { metadata: { owner: 'a' } } })).body, []);
    assert.deepEqual((await b('/threads/search', { json: { ids: [thread, pendingThread] } })).body, []);
    assert.equal((await b('/threads/count', { json: {} })).body, 1);
    assert.equal((await b('/threads/prune', { json: { thread_ids: [thread, pendingThread], strategy: 'delete' } })).body.pruned_count, 0);
    assert.equal((await b('/runs/cancel', { json: { status: 'all' } })).status, 204);

    // A sees its own, and its pending run was not cancelled by B
    const mine = await a('/threads/search', { json: { limit: 100 } });
    assert.ok(mine.body.some((t: any) => t.thread_id === thread));
    assert.ok(!mine.body.some((t: any) => t.thread_id === own.body.thread_id));
    assert.ok((await a('/threads/count', { json: {} })).body >= 2);
    assert.equal((await a(`/threads/${pendingThread}/runs/${pendingRun}`)).body.status, 'pending');
  });

  it("B cannot take A's thread id: creating it is 409 whatever if_exists says, and a run with if_not_exists=create is 404", async () => {
    const raised = await b('/threads', { json: { thread_id: thread, metadata: { owner: 'b' } } });
    assert.equal(raised.status, 409);
    assert.deepEqual(raised.body, { detail: 'Thread already exists' });
    const quiet = await b('/threads', { json: { thread_id: thread, if_exists: 'do_nothing' } });
    assert.equal(quiet.status, 409);
    assert.ok(!JSON.stringify(quiet.body).includes('of a'));
    const created = await b(`/threads/${thread}/runs`, { json: { assistant_id: 'echo', input: hello, if_not_exists: 'create' } });
    assert.equal(created.status, 404);
    assert.equal((await a(`/threads/${thread}/runs`)).body.length, 1);
    assert.equal((await a(`/threads/${thread}`)).body.metadata.owner, 'a');
    // A itself still gets its thread back with do_nothing
    const again = await a('/threads', { json: { thread_id: thread, if_exists: 'do_nothing' } });
    assert.equal(again.status, 200);
    assert.equal(again.body.metadata.owner, 'a');
  });

  it("B cannot see, change or run A's assistant; the system assistants stay shared and read-only", async () => {
    const as = (suffix: string, init?: { method?: string; json?: unknown }) => (id: string) => b(`/assistants/${id}${suffix}`, init);
    await sameAsAbsent(as(''), assistant);
    await sameAsAbsent(as('', { method: 'PATCH', json: { name: 'b was here' } }), assistant);
    await sameAsAbsent(as('', { method: 'DELETE' }), assistant);
    await sameAsAbsent(as('/versions', { json: {} }), assistant);
    await sameAsAbsent(as('/latest', { json: { version: 1 } }), assistant);
    await sameAsAbsent(as('/graph'), assistant);
    await sameAsAbsent(as('/schemas'), assistant);
    await sameAsAbsent(as('/subgraphs'), assistant);
    await sameAsAbsent((id) => b('/runs/wait', { json: { assistant_id: id, input: hello } }), assistant);
    await sameAsAbsent((id) => b('/runs/crons', { json: { assistant_id: id, schedule: '0 0 1 1 *' } }), assistant);
    const taken = await b('/assistants', { json: { assistant_id: assistant, graph_id: 'echo', if_exists: 'do_nothing' } });
    assert.equal(taken.status, 409);
    assert.ok(!JSON.stringify(taken.body).includes('a-private'));

    const listed = await b('/assistants/search', { json: { limit: 100 } });
    assert.ok(!listed.body.some((x: any) => x.assistant_id === assistant));
    assert.ok(listed.body.some((x: any) => x.graph_id === 'echo' && x.metadata.created_by === 'system'));
    const systemCount = listed.body.length;
    assert.equal((await b('/assistants/count', { json: {} })).body, systemCount);
    assert.equal((await a('/assistants/count', { json: {} })).body, systemCount + 1);

    assert.equal((await b('/assistants/echo')).status, 200);
    assert.equal((await b('/assistants/echo', { method: 'PATCH', json: { name: 'mine now' } })).status, 409);
    assert.equal((await b('/runs/wait', { json: { assistant_id: 'echo', input: hello } })).status, 200);

    const own = await a(`/assistants/${assistant}`);
    assert.equal(own.status, 200);
    assert.equal(own.body.name, 'a-private');
    assert.equal('owner' in own.body, false, 'the owner is not part of the API object');
    assert.ok((await a('/assistants/search', { json: { limit: 100 } })).body.some((x: any) => x.assistant_id === assistant));
    assert.equal((await a('/runs/wait', { json: { assistant_id: assistant, input: hello } })).status, 200);
  });

  it("B cannot see, change or delete A's crons", async () => {
    assert.deepEqual((await b('/runs/crons/search', { json: {} })).body, []);
    assert.equal((await b('/runs/crons/count', { json: {} })).body, 0);
    await sameAsAbsent((id) => b(`/runs/crons/${id}`, { method: 'PATCH', json: { enabled: false } }), cron);
    await sameAsAbsent((id) => b(`/runs/crons/${id}`, { method: 'DELETE' }), cron);
    const own = await a('/runs/crons/search', { json: {} });
    assert.deepEqual(
      own.body.map((c: any) => c.cron_id),
      [cron],
    );
    assert.equal(own.body[0].enabled, true);
  });

  it("B's store is its own: A's items are neither read, listed, searched nor deleted", async () => {
    assert.equal((await b('/store/items?namespace=notes&key=k')).body, null);
    assert.deepEqual((await b('/store/items/search', { json: { namespace_prefix: ['notes'] } })).body.items, []);
    assert.deepEqual((await b('/store/namespaces', { json: {} })).body.namespaces, []);
    assert.equal((await b('/store/items', { method: 'DELETE', json: { namespace: ['notes'], key: 'k' } })).status, 204);
    assert.deepEqual((await a('/store/items?namespace=notes&key=k')).body.value, { text: 'of a' });
  });

  it("a graph's store is its run's tenant's: A's graph finds A's items, B's finds none", async () => {
    assert.equal((await a('/store/items', { method: 'PUT', json: { namespace: ['memories'], key: 'm', value: { text: 'of a' } } })).status, 204);
    const reply = async (caller: Caller) => (await caller('/runs/wait', { json: { assistant_id: 'recall', input: {} } })).body.messages.at(-1).content;
    assert.equal(await reply(a), 'found 1');
    assert.equal(await reply(b), 'found 0');
  });

  it("B cannot get, cancel or continue A's A2A task (task not found), nor send into A's context", async () => {
    const call = (caller: Caller, method: string, params: unknown) => caller('/a2a/echo', { json: { jsonrpc: '2.0', id: 7, method, params } });
    for (const [method, params] of [
      ['tasks/get', { id: taskId }],
      ['tasks/cancel', { id: taskId }],
    ] as const) {
      const foreign = await call(b, method, params);
      const absent = await call(b, method, { id: randomUUID() });
      assert.equal(foreign.body.error?.code, -32001, JSON.stringify(foreign.body));
      assert.equal(absent.body.error?.code, -32001);
    }
    const follow = await call(b, 'message/send', {
      message: { kind: 'message', role: 'user', messageId: randomUUID(), taskId, parts: [{ kind: 'text', text: 'again' }] },
    });
    assert.equal(follow.body.error?.code, -32001);
    const context = (await a(`/a2a/echo`, { json: { jsonrpc: '2.0', id: 8, method: 'tasks/get', params: { id: taskId } } })).body.result.contextId;
    const into = await call(b, 'message/send', {
      message: { kind: 'message', role: 'user', messageId: randomUUID(), contextId: context, parts: [{ kind: 'text', text: 'in' }] },
    });
    assert.ok(into.body.error, JSON.stringify(into.body));
    assert.ok(!JSON.stringify(into.body).includes('hi'));

    const own = await call(a, 'tasks/get', { id: taskId });
    assert.equal(own.body.result?.id, taskId);
    assert.equal(own.body.result.status.state, 'completed');
    assert.equal((await a(`/threads/${context}/runs`)).body.length, 1, "B's message made no run on A's context");
  });

  it("the MCP tools B sees are the shared assistants, not A's", async () => {
    const list = async (caller: Caller) =>
      (await caller('/mcp', { json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })).body.result.tools.map((t: any) => t.name);
    assert.ok((await list(a)).includes('a-private'));
    assert.ok(!(await list(b)).includes('a-private'));
  });

  it('/ok stays public (a load balancer carries no key) and says nothing but ok; other routes still want a key', async () => {
    const anonymous = callerOf(server, null);
    const ok = await anonymous('/ok');
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { ok: true });
    // a wrong key is not refused either: the probe never looks at credentials
    assert.equal((await callerOf(server, 'not-a-key')('/ok')).status, 200);
    assert.equal((await anonymous('/threads/search', { json: {} })).status, 401);
  });

  it('A still owns everything it made, and deletes it', async () => {
    assert.equal((await a(`/threads/${pendingThread}/runs/${pendingRun}/cancel`, { json: {} })).status, 202);
    assert.equal((await a(`/runs/crons/${cron}`, { method: 'DELETE' })).status, 204);
    assert.equal((await a(`/assistants/${assistant}`, { method: 'DELETE' })).status, 204);
    assert.equal((await a(`/threads/${thread}`, { method: 'DELETE' })).status, 204);
    assert.equal((await a(`/threads/${thread}`)).status, 404);
  });
});

describe('agent-server auth off (the default): one shared space, as before', () => {
  let server: InProcessApp;
  const tenantA = randomUUID();
  const tenantB = randomUUID();
  before(async () => {
    server = await areaApp('a2a', { project: testProject, dataDir: null, env: { AGENTPLANE_API_KEYS: `key-a:${tenantA},key-b:${tenantB}` } });
  });
  after(() => server?.close());

  it('whoever calls, with either key or none, sees and uses the same threads, assistants, crons and store', async () => {
    const a = callerOf(server, 'key-a');
    const b = callerOf(server, 'key-b');
    const anonymous = callerOf(server, null);
    const thread = (await a('/threads', { json: { metadata: { owner: 'a' } } })).body.thread_id;
    const assistant = (await a('/assistants', { json: { graph_id: 'echo', name: 'shared' } })).body.assistant_id;
    assert.equal((await a('/store/items', { method: 'PUT', json: { namespace: ['notes'], key: 'k', value: { text: 'shared' } } })).status, 204);
    const cron = (await a(`/threads/${thread}/runs/crons`, { json: { assistant_id: assistant, schedule: '0 0 1 1 *' } })).body.cron_id;
    for (const caller of [b, anonymous]) {
      assert.equal((await caller(`/threads/${thread}`)).status, 200);
      assert.ok((await caller('/threads/search', { json: {} })).body.some((t: any) => t.thread_id === thread));
      assert.equal((await caller('/threads/count', { json: {} })).body, 1);
      assert.equal((await caller(`/assistants/${assistant}`)).status, 200);
      assert.deepEqual((await caller('/store/items?namespace=notes&key=k')).body.value, { text: 'shared' });
      assert.deepEqual(
        (await caller('/runs/crons/search', { json: {} })).body.map((c: any) => c.cron_id),
        [cron],
      );
    }
    assert.equal((await b(`/threads/${thread}/runs/wait`, { json: { assistant_id: assistant, input: hello } })).status, 200);
    assert.equal((await anonymous(`/threads/${thread}/runs`)).body.length, 1);
    assert.equal((await b(`/runs/crons/${cron}`, { method: 'DELETE' })).status, 204);
    assert.equal((await b(`/threads/${thread}`, { method: 'DELETE' })).status, 204);
    assert.equal((await a(`/threads/${thread}`)).status, 404);
  });
});
