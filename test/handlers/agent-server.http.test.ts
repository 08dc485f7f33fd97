// Wire details the SDK relies on but does not show: status codes, `{detail}` bodies,
// Content-Location, query flags, resuming a stream with Last-Event-ID, and the auth switch.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type InProcessApp } from '../support/server.ts';
import { areaApp } from '../support/area.ts';
import { testProject } from '../fixtures/agent-server/project.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const body = async (res: Response | Promise<Response>): Promise<any> => (await res).json();

function parseSse(text: string): { event?: string; id?: string; data: unknown }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() && !frame.startsWith(':'))
    .map((frame) => {
      const out: { event?: string; id?: string; data: unknown } = { data: null };
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) out.event = line.slice(7);
        else if (line.startsWith('id: ')) out.id = line.slice(4);
        else if (line.startsWith('data: ')) out.data = JSON.parse(line.slice(6));
      }
      return out;
    });
}

describe('agent server over HTTP', () => {
  let server: InProcessApp;
  const anon = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    server.fetch(server.url + path, {
      ...init,
      headers: init.json !== undefined ? { 'content-type': 'application/json' } : undefined,
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
  before(async () => {
    server = await areaApp('a2a', { project: testProject, dataDir: null });
  });
  after(() => server.close());

  it('accepts anonymous requests by default', async () => {
    const res = await anon('/threads', { method: 'POST', json: {} });
    assert.equal(res.status, 200);
  });

  it('answers 200 with Content-Location on run creation', async () => {
    const thread = await body(anon('/threads', { method: 'POST', json: {} }));
    const res = await anon(`/threads/${thread.thread_id}/runs`, { method: 'POST', json: { assistant_id: 'echo', input: say('hi') } });
    assert.equal(res.status, 200);
    const run = await body(res);
    assert.equal(res.headers.get('content-location'), `/threads/${thread.thread_id}/runs/${run.run_id}`);
    assert.equal(run.multitask_strategy, 'enqueue');
    assert.match(run.run_id, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    const waited = await anon(`/threads/${thread.thread_id}/runs/wait`, { method: 'POST', json: { assistant_id: 'echo', input: say('again') } });
    assert.match(waited.headers.get('content-location') ?? '', new RegExp(`^/threads/${thread.thread_id}/runs/`));
  });

  it('answers 404 {detail} for unknown threads, runs and assistants, 422 for invalid input', async () => {
    const missing = randomUUID();
    const noThread = await anon(`/threads/${missing}/runs`, { method: 'POST', json: { assistant_id: 'echo' } });
    assert.equal(noThread.status, 404);
    assert.deepEqual(await body(noThread), { detail: 'Thread or assistant not found.' });
    for (const path of [
      `/threads/${missing}`,
      `/threads/${missing}/state`,
      `/threads/${missing}/runs`,
      `/threads/${missing}/runs/${missing}`,
      `/threads/${missing}/runs/${missing}/join`,
      '/assistants/nope',
    ]) {
      const res = await anon(path);
      assert.equal(res.status, 404, path);
      assert.equal(typeof (await body(res)).detail, 'string');
    }
    const thread = await body(anon('/threads', { method: 'POST', json: {} }));
    const invalid = await anon(`/threads/${thread.thread_id}/runs`, { method: 'POST', json: { input: say('no assistant'), multitask_strategy: 'later' } });
    assert.equal(invalid.status, 422);
    assert.ok(Array.isArray((await body(invalid)).detail));
    assert.equal((await anon('/threads/not-a-uuid')).status, 422);
    assert.equal((await anon(`/threads/${thread.thread_id}/runs`)).status, 200);
    assert.deepEqual(await body(anon(`/threads/${thread.thread_id}/runs`)), [], 'the invalid run was not stored');
  });

  it('words the common 404 and 409 details as the upstream JS server does', async () => {
    const missing = randomUUID();
    const thread = await body(anon('/threads', { method: 'POST', json: {} }));
    const assistant = await body(anon('/assistants', { method: 'POST', json: { graph_id: 'echo' } }));
    const cases: [string, string, unknown, number, string][] = [
      ['GET', `/threads/${missing}`, undefined, 404, `Thread with ID ${missing} not found`],
      ['DELETE', `/threads/${missing}`, undefined, 404, `Thread with ID ${missing} not found`],
      ['PATCH', `/threads/${missing}`, { metadata: {} }, 404, 'Thread not found'],
      ['GET', `/threads/${thread.thread_id}/runs/${missing}`, undefined, 404, 'Run not found'],
      ['DELETE', `/threads/${thread.thread_id}/runs/${missing}`, undefined, 404, 'Run not found'],
      ['POST', `/threads/${thread.thread_id}/runs/${missing}/cancel`, undefined, 404, 'Run not found'],
      ['GET', `/threads/${thread.thread_id}/runs/${missing}/join`, undefined, 404, 'Run not found'],
      [
        'POST',
        `/threads/${thread.thread_id}/runs`,
        { assistant_id: 'nope' },
        404,
        'No assistant found for "nope". Make sure the assistant ID is for a valid assistant or a valid graph ID.',
      ],
      [
        'POST',
        '/runs/wait',
        { assistant_id: missing },
        404,
        `No assistant found for "${missing}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`,
      ],
      ['GET', `/assistants/${missing}`, undefined, 404, 'Assistant not found'],
      ['PATCH', `/assistants/${missing}`, { metadata: {} }, 404, 'Assistant not found'],
      ['DELETE', `/assistants/${missing}`, undefined, 404, 'Assistant not found'],
      ['GET', `/assistants/${missing}/graph`, undefined, 404, 'Assistant not found'],
      ['POST', `/assistants/${missing}/versions`, {}, 404, `Assistant "${missing}" not found.`],
      ['POST', `/assistants/${assistant.assistant_id}/latest`, { version: 99 }, 404, 'Assistant version not found'],
      ['POST', '/threads', { thread_id: thread.thread_id }, 409, 'Thread already exists'],
      ['POST', '/assistants', { graph_id: 'echo', assistant_id: assistant.assistant_id }, 409, 'Assistant already exists'],
    ];
    for (const [method, path, json, status, detail] of cases) {
      const res = await anon(path, { method, json });
      assert.deepEqual([method, path, res.status, await body(res)], [method, path, status, { detail }]);
    }
  });

  it('cancels with wait=1 (204 once stopped); a finished run is left as it is, as upstream', async () => {
    const thread = await body(anon('/threads', { method: 'POST', json: {} }));
    const run = await body(
      anon(`/threads/${thread.thread_id}/runs`, { method: 'POST', json: { assistant_id: 'slow', input: say('x'), context: { delay_ms: 30_000 } } }),
    );
    const cancel = await anon(`/threads/${thread.thread_id}/runs/${run.run_id}/cancel?wait=1&action=interrupt`, { method: 'POST' });
    assert.equal(cancel.status, 204);
    assert.equal((await body(anon(`/threads/${thread.thread_id}/runs/${run.run_id}`))).status, 'interrupted');
    const again = await anon(`/threads/${thread.thread_id}/runs/${run.run_id}/cancel`, { method: 'POST' });
    assert.equal(again.status, 202);
    assert.deepEqual(await body(again), {});
    assert.equal((await body(anon(`/threads/${thread.thread_id}/runs/${run.run_id}`))).status, 'interrupted');
  });

  it('resumes a run stream after Last-Event-ID', async () => {
    const thread = await body(anon('/threads', { method: 'POST', json: {} }));
    const res = await anon(`/threads/${thread.thread_id}/runs/stream`, {
      method: 'POST',
      json: { assistant_id: 'echo', input: say('hi'), stream_mode: ['values', 'updates'] },
    });
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const all = parseSse(await res.text());
    assert.deepEqual(
      all.map((e) => e.event),
      ['metadata', 'values', 'updates', 'values'],
    );
    const runId = (all[0].data as { run_id: string }).run_id;
    const resumed = await server.fetch(`${server.url}/threads/${thread.thread_id}/runs/${runId}/stream?stream_mode=values`, {
      headers: { 'Last-Event-ID': all[1].id! },
    });
    assert.deepEqual(
      parseSse(await resumed.text()).map((e) => e.event),
      ['values'],
    );
  });

  it("types a run's command as LangGraph reads it: what LangGraph would reject is a 422 at the door", async () => {
    const thread = await body(anon('/threads', { method: 'POST', json: {} }));
    const create = (command: unknown) =>
      anon(`/threads/${thread.thread_id}/runs`, { method: 'POST', json: { assistant_id: 'echo', command, multitask_strategy: 'enqueue' } });
    const refused: [string, unknown][] = [
      ['goto a number', { goto: 5 }],
      ['goto a send without its node', { goto: { input: { x: 1 } } }],
      ['goto a list with a number', { goto: ['echo', 7] }],
      ['goto an empty name', { goto: '' }],
      ['update a string', { update: 'messages' }],
      ['update a pair without its value', { update: [['messages']] }],
      ['update a pair keyed by a number', { update: [[1, 'x']] }],
    ];
    for (const [what, command] of refused) {
      const res = await create(command);
      assert.equal(res.status, 422, what);
      assert.match(JSON.stringify(await res.json()), /command/, what);
    }
    const accepted: [string, unknown][] = [
      ['resume any value', { resume: [1, { two: 'three' }] }],
      ['goto a name', { goto: 'echo' }],
      ['goto a send', { goto: { node: 'echo', input: say('sent') } }],
      ['goto a list of both', { goto: ['echo', { node: 'echo', input: say('sent') }] }],
      ['update an object', { update: { messages: [] } }],
      ['update [key, value] pairs', { update: [['messages', []]] }],
    ];
    for (const [what, command] of accepted) assert.equal((await create(command)).status, 200, what);
  });
});

describe('agent server with auth.agent_server on', () => {
  it('requires the control-plane API keys on agent-server and A2A routes', async () => {
    const server = await areaApp('a2a', { project: testProject, dataDir: null, env: { AGENTPLANE_AGENT_SERVER_AUTH: '1' } });
    try {
      for (const [path, init] of [
        ['/threads', { method: 'POST' }],
        ['/assistants/echo', {}],
        ['/a2a/echo', { method: 'POST' }],
      ] as const) {
        const res = await server.fetch(server.url + path, init);
        assert.equal(res.status, 401, path);
        assert.equal(typeof (await body(res)).detail, 'string');
      }
      // the liveness probe stays public (load balancers carry no key), and so does the agent card:
      // a client learns from it how to authenticate (issue 85, docs/a2a.md)
      assert.equal((await server.fetch(`${server.url}/ok`)).status, 200);
      assert.equal((await server.fetch(`${server.url}/.well-known/agent-card.json`)).status, 200);
      const created = await server.api('/threads', { method: 'POST', json: {} });
      assert.equal(created.status, 200);
      const bearer = await server.fetch(`${server.url}/assistants/echo`, { headers: { authorization: `Bearer ${server.key}` } });
      assert.equal(bearer.status, 200);
    } finally {
      await server.close();
    }
  });
});
