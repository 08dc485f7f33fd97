// Run metrics per assistant (GET /assistants/{id}/metrics, an agentplane extension the
// dashboard's assistant page shows): counts by status, the error rate over finished runs and
// the finished runs' p50/p95 duration, over a window of the runs' creation times.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AssistantRunMetrics } from '../../../generated/agent-server/types.gen.ts';
import { finishedTracedRun } from '../../support/tracedRun.ts';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

const graphs = { traced: path.join(ROOT, 'test/fixtures/graphs/traced.ts') + ':traced' };

type Metrics = AssistantRunMetrics;

describe('GET /assistants/{assistant_id}/metrics', () => {
  let server: InProcessApp;
  let systemAssistant: string;
  before(async () => {
    server = await areaApp('agent-server', { project: { graphs } });
    const found = (await (await server.api('/assistants/search', { method: 'POST', json: { graph_id: 'traced' } })).json()) as { assistant_id: string }[];
    systemAssistant = found[0].assistant_id;
  });
  after(() => server?.close());

  const metrics = async (assistant: string, query = '') => {
    const res = await server.api(`/assistants/${assistant}/metrics${query}`);
    return { status: res.status, body: (await res.json()) as Metrics & { detail?: unknown } };
  };

  test('an assistant nobody ran has zero runs and no rate or durations yet', async () => {
    const created = (await (await server.api('/assistants', { method: 'POST', json: { graph_id: 'traced', name: 'idle' } })).json()) as {
      assistant_id: string;
    };
    const { status, body } = await metrics(created.assistant_id);
    assert.equal(status, 200);
    assert.deepEqual(body, {
      assistant_id: created.assistant_id,
      window_s: 3600,
      run_count: 0,
      finished_count: 0,
      error_count: 0,
      error_rate: null,
      p50_ms: null,
      p95_ms: null,
      by_status: { pending: 0, running: 0, success: 0, error: 0, timeout: 0, interrupted: 0 },
    });
  });

  test('after three successful runs and one failed run: four runs, one error, a rate of 0.25 and durations', async () => {
    for (const content of ['add', 'add', 'add', 'fail please']) await finishedTracedRun(server, content);
    // addressed by graph id (as runs are) or by the assistant's id: the same figures
    const byGraph = await metrics('traced', '?window_s=86400');
    assert.equal(byGraph.status, 200);
    const byId = await metrics(systemAssistant, '?window_s=86400');
    assert.deepEqual(byId.body, byGraph.body);
    const body = byGraph.body;
    assert.equal(body.assistant_id, systemAssistant);
    assert.equal(body.window_s, 86400);
    assert.equal(body.run_count, 4);
    assert.equal(body.finished_count, 4);
    assert.equal(body.error_count, 1);
    assert.equal(body.error_rate, 0.25);
    assert.deepEqual(body.by_status, { pending: 0, running: 0, success: 3, error: 1, timeout: 0, interrupted: 0 });
    assert.ok(typeof body.p50_ms === 'number' && body.p50_ms >= 0, `p50 ${body.p50_ms}`);
    assert.ok(typeof body.p95_ms === 'number' && body.p95_ms >= body.p50_ms, `p95 ${body.p95_ms} vs p50 ${body.p50_ms}`);
    // another assistant of the same graph ran nothing: its figures are its own
    const other = (await (await server.api('/assistants', { method: 'POST', json: { graph_id: 'traced', name: 'other' } })).json()) as { assistant_id: string };
    assert.equal((await metrics(other.assistant_id)).body.run_count, 0);
  });

  test('an unknown assistant is a 404 in the documented shape', async () => {
    const { status, body } = await metrics('00000000-0000-4000-8000-000000000000');
    assert.equal(status, 404);
    assert.equal(typeof body.detail, 'string');
  });

  test('a window that is not a whole number of seconds from 1 to 30 days is a 422 in the documented shape', async () => {
    for (const window of ['0', '-5', 'abc', '1.5', '2592001']) {
      const { status, body } = await metrics('traced', `?window_s=${window}`);
      assert.equal(status, 422, `window_s=${window}`);
      assert.ok(body.detail, `window_s=${window}: ${JSON.stringify(body)}`);
    }
  });
});
