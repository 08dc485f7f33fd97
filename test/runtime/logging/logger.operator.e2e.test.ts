// What an operator finds in the server's own log (LOG_FORMAT=json, a child server): a graph
// that throws is explained with its run, thread, assistant and stack; a deployment's life
// (created, each status, a failure and its reason, deleted) is told at info.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnServer, tempDir, type ChildServer } from '../../support/server.ts';
import { FIXTURE_CONFIG } from '../../fixtures/agent-server/project.ts';
import { githubBody, json, waitForRevision, waitUntilGone, type Api } from '../../control-plane/support.ts';

const KEY = 'operator-log-key';
const TENANT = '44444444-4444-4444-8444-444444444444';
type Line = Record<string, any>;

describe('the server log', () => {
  let server: ChildServer;
  let api: Api;
  const lines = (): Line[] =>
    server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
  /** The log lines with this message, waiting a little for ones written after the reply. */
  const logged = async (msg: string, match: (line: Line) => boolean = () => true): Promise<Line[]> => {
    for (let i = 0; i < 100; i += 1) {
      const found = lines().filter((l) => l.msg === msg && match(l));
      if (found.length) return found;
      await sleep(20);
    }
    return [];
  };

  before(async () => {
    server = await spawnServer(['--data', tempDir(), '--config', FIXTURE_CONFIG], { LOG_FORMAT: 'json', AGENTPLANE_API_KEYS: `${KEY}:${TENANT}` });
    api = (pathname, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('x-api-key', KEY);
      if (init.json !== undefined) headers.set('content-type', 'application/json');
      return fetch(server.url + pathname, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
    };
  });
  after(() => server.kill('SIGTERM'));

  it('explains a graph that throws: error level, run, thread, assistant and graph ids, the stack', async () => {
    const thread = await json(await api('/threads', { method: 'POST', json: {} }), 200);
    const res = await api(`/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      json: { assistant_id: 'flaky', input: { messages: [{ role: 'user', content: 'fail' }] } },
    });
    const answer = await json(res, 200);
    assert.ok(answer.__error__, 'the client sees __error__');
    const [failure] = await logged('graph failed', (l) => l.thread_id === thread.thread_id);
    assert.ok(failure, 'a "graph failed" line for the thread');
    assert.equal(failure.level, 'error');
    assert.match(failure.run_id, /^[0-9a-f-]{36}$/);
    assert.match(failure.assistant_id, /^[0-9a-f-]{36}$/);
    assert.equal(failure.graph_id, 'flaky');
    assert.match(failure.err.message, /asked to fail/);
    assert.match(failure.err.stack, /fixtures\/agent-server\/graphs\.ts/);
  });

  it('tells a deployment’s life: created, each status, a failure with its reason, deletion', async () => {
    const created = await json(await api('/v2/deployments', { method: 'POST', json: githubBody('logged', { build_command: 'npm run build && fail' }) }), 201);
    const revision = await waitForRevision(api, created.id, created.latest_revision_id);
    assert.equal(revision.status, 'BUILD_FAILED');
    const mine = (l: Line) => l.deployment_id === created.id;

    const [made] = await logged('deployment created', mine);
    assert.ok(made, 'a "deployment created" line');
    assert.equal(made.level, 'info');
    assert.equal(made.revision_id, created.latest_revision_id);
    assert.equal(made.name, 'logged');

    const statuses = (await logged('revision status', mine)).map((l) => `${l.from}>${l.status}`);
    for (const step of ['CREATING>QUEUED', 'QUEUED>AWAITING_BUILD', 'AWAITING_BUILD>BUILDING'])
      assert.ok(statuses.includes(step), `${step} in ${statuses.join(', ')}`);
    const [failed] = await logged('revision failed', mine);
    assert.ok(failed, 'a "revision failed" line');
    assert.equal(failed.level, 'info');
    assert.equal(failed.status, 'BUILD_FAILED');
    assert.equal(failed.reason, revision.status_message);
    assert.match(failed.reason, /build command/);
    const ready = await logged('deployment status', (l) => mine(l) && l.status === 'READY');
    assert.equal(ready[0]?.from, 'AWAITING_DATABASE');

    const patched = await json(
      await api(`/v2/deployments/${created.id}`, {
        method: 'PATCH',
        json: { source_config: { build_command: 'npm run build' }, source_revision_config: { repo_ref: 'fixed' } },
      }),
      200,
    );
    const [again] = await logged('revision created', mine);
    assert.equal(again?.revision_id, patched.latest_revision_id);

    await waitForRevision(api, created.id, patched.latest_revision_id);
    const res = await api(`/v2/deployments/${created.id}`, { method: 'DELETE' });
    assert.equal(res.status, 204);
    await waitUntilGone(api, created.id);
    assert.ok((await logged('deployment status', (l) => mine(l) && l.status === 'AWAITING_DELETE')).length, 'AWAITING_DELETE logged');
    assert.ok((await logged('deployment deleted', mine)).length, 'deletion logged');
    // secrets never reach the log
    assert.doesNotMatch(server.output(), /sk-proj-4f9c2e7a1b/);
  });
});
