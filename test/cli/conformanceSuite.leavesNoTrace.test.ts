// `conformance --url` leaves no trace (issue 89): what the suite's own requests created —
// assistants, threads (made directly, by a copy, or by a run with if_not_exists), crons and
// deployments — is noted from the answers (test/conformance/lib/created.ts), each cron is
// paused as soon as it exists, and the end deletes it all: the server holds exactly what it
// held before, and what its users made meanwhile stays.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inProcessApp, type InProcessApp } from '../support/server.ts';
import { holdings } from '../support/holdings.ts';
import { CreatedResources } from '../conformance/lib/created.ts';
import { operationById } from '../conformance/lib/contract.ts';
import { requestFor, send, type HttpResponse, type Target } from '../conformance/lib/http.ts';

describe('conformance --url leaves no trace', () => {
  let app: InProcessApp;
  before(async () => {
    app = await inProcessApp({ project: { graphs: { echo: './examples/graphs/echo.ts:echo' } } });
  });
  after(() => app.close());

  const held = () => holdings((p, i) => app.api(p, i));

  it('deletes every assistant, thread, cron and deployment it made, pausing each cron at once, and nothing of anyone else', async () => {
    // the server is in use: a user's thread before, another made during the run
    const userThread = (await (await app.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    const was = await held();

    const created = new CreatedResources();
    const target: Target = { url: app.url, key: app.key, mode: 'real', fetch: app.fetch, onAnswer: (t, req, res) => created.note(t, req, res) };
    await created.spareExisting(target);
    const call = (operationId: string, path: Record<string, unknown>, body?: unknown): Promise<HttpResponse> =>
      send(target, requestFor(operationById.get(operationId)!, { path, body: body === undefined ? undefined : { kind: 'json', value: body } }));
    const ok = (res: HttpResponse) => {
      assert.ok(res.status >= 200 && res.status < 300, `HTTP ${res.status} ${res.text}`);
      return res.json as Record<string, any>;
    };

    const assistant = ok(await call('createAssistant', {}, { graph_id: 'echo', name: 'Support agent' }));
    const thread = ok(await call('createThread', {}, { metadata: { fuzzed: true } }));
    ok(await call('copyThread', { thread_id: thread.thread_id }));
    const cron = ok(await call('createCron', {}, { assistant_id: assistant.assistant_id, schedule: '*/15 * * * *', enabled: true }));
    ok(await call('createThreadCron', { thread_id: thread.thread_id }, { assistant_id: 'echo', schedule: '* * * * *' }));
    // a run on the user's thread (found in a listing) leaves it theirs
    ok(await call('createRun', { thread_id: userThread.thread_id }, { assistant_id: 'echo', input: { messages: [] } }));
    const madeByRun = randomUUID();
    ok(await call('createRun', { thread_id: madeByRun }, { assistant_id: 'echo', if_not_exists: 'create', input: { messages: [] } }));
    ok(
      await call(
        'createDeployment',
        {},
        { name: 'conformance-trace', source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'registry.example/agent:1.0' } },
      ),
    );
    const userMeanwhile = (await (await app.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };

    // a cron exists paused: its schedule may fall due before the end
    const stored = (await (await app.api(`/runs/crons/search`, { method: 'POST', json: { limit: 1000 } })).json()) as { cron_id: string; enabled: boolean }[];
    assert.equal(stored.find((c) => c.cron_id === cron.cron_id)?.enabled, false);
    assert.ok(
      stored.filter((c) => !was.crons.includes(c.cron_id)).every((c) => c.enabled === false),
      'every cron it made is paused',
    );
    assert.deepEqual(created.counts(), { cron: 2, thread: 3, assistant: 1, deployment: 1 });

    // runs on the threads are done or cancelled with them; what could not go is named
    assert.deepEqual(await created.deleteAll(target), []);
    const now = await held();
    assert.deepEqual({ ...now, threads: now.threads.filter((id) => id !== userMeanwhile.thread_id) }, was);
    assert.ok(now.threads.includes(userThread.thread_id) && now.threads.includes(userMeanwhile.thread_id), "the users' threads stay");
  });
});
