// Every run records a trace (OpenTelemetry spans for the run, its nodes, model calls and tool
// calls): kept with the run and read with GET /threads/{id}/runs/{id}/trace, and exported
// over OTLP/HTTP (JSON) to the collector OTEL_EXPORTER_OTLP_ENDPOINT names, under the
// service name OTEL_SERVICE_NAME gives (a deployment's name when the control plane starts it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { otlpReceiver } from '../../../support/otlpReceiver.ts';
import { finishedTracedRun } from '../../../support/tracedRun.ts';
import { ROOT, spawnServer, startTestServer, tempDir, type TestServer } from '../../../support/server.ts';

const graphs = { traced: path.join(ROOT, 'test/fixtures/graphs/traced.ts') + ':traced' };

interface Span {
  name: string;
  kind: string;
  parent_span_id: string | null;
  span_id: string;
  duration_ms: number;
  status: string;
  attributes: Record<string, unknown>;
}

describe('a run trace read through the API', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ project: { graphs } });
  });
  after(() => server?.close());

  test('a run trace holds its nodes in order, the model call in `agent` and the tool call in `tools`, with durations', async () => {
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    const run = (await (
      await server.api(`/threads/${thread.thread_id}/runs`, {
        method: 'POST',
        json: { assistant_id: 'traced', input: { messages: [{ role: 'user', content: 'add' }] } },
      })
    ).json()) as { run_id: string };
    await server.api(`/threads/${thread.thread_id}/runs/${run.run_id}/join`);
    const res = await server.api(`/threads/${thread.thread_id}/runs/${run.run_id}/trace`);
    assert.equal(res.status, 200);
    const spans = (await res.json()) as Span[];
    const root = spans.find((s) => s.kind === 'run')!;
    assert.equal(root.parent_span_id, null);
    assert.equal(root.attributes['langgraph.graph_id'], 'traced');
    const nodes = spans.filter((s) => s.kind === 'node');
    assert.deepEqual(
      nodes.map((s) => s.name),
      ['agent', 'tools'],
    );
    assert.ok(nodes.every((s) => s.parent_span_id === root.span_id && s.duration_ms >= 0 && (s.attributes['output.size'] as number) > 0));
    const model = spans.find((s) => s.kind === 'model')!;
    const toolCall = spans.find((s) => s.kind === 'tool')!;
    assert.equal(model.parent_span_id, nodes[0].span_id);
    // the trace a run keeps has the content that content capture keeps out of the export
    assert.match(String(model.attributes['gen_ai.input.messages']), /add/);
    assert.deepEqual(JSON.parse(String(model.attributes['gen_ai.output.messages'])), [
      { role: 'assistant', parts: [{ type: 'text', content: 'Let me add 2 and 3.' }], finish_reason: 'stop' },
    ]);
    assert.equal(toolCall.name, 'execute_tool add');
    assert.equal(toolCall.parent_span_id, nodes[1].span_id);
    assert.equal(toolCall.attributes['gen_ai.tool.call.result'], '5');
    assert.ok(spans.every((s) => s.status === 'ok'));
    // the trace is no part of the run object
    const got = (await (await server.api(`/threads/${thread.thread_id}/runs/${run.run_id}`)).json()) as Record<string, unknown>;
    assert.equal(got.trace, undefined);
  });

  test('a failed run keeps its trace (graph run in a run worker): the spans up to the error, the failing node and the run marked with the error', () =>
    assertFailedRunTrace(server));

  test('the trace of a run that does not exist is a 404 in the documented shape', async () => {
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    const res = await server.api(`/threads/${thread.thread_id}/runs/00000000-0000-4000-8000-000000000000/trace`);
    assert.equal(res.status, 404);
    assert.ok(((await res.json()) as { detail?: string }).detail);
  });
});

test('with OTEL_EXPORTER_OTLP_ENDPOINT set, the spans of a run arrive at the collector with OTEL_SERVICE_NAME as the service', async () => {
  const receiver = await otlpReceiver();
  const projectDir = tempDir();
  fs.writeFileSync(path.join(projectDir, 'agentplane.json'), JSON.stringify({ graphs }));
  const server = await spawnServer(['--memory'], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'my-deployment' }, projectDir);
  try {
    const call = async (pathname: string, body?: unknown) =>
      (
        await fetch(
          server.url + pathname,
          body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
        )
      ).json() as Promise<Record<string, string>>;
    const thread = await call('/threads', {});
    await call(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: 'traced', input: { messages: [{ role: 'user', content: 'add' }] } });
    const names = () =>
      receiver
        .spans()
        .filter((s) => s.service === 'my-deployment')
        .map((s) => s.name);
    await receiver.arrived(() => ['invoke_agent traced', 'agent', 'tools', 'execute_tool add'].every((name) => names().includes(name)));
    assert.ok(receiver.spans().every((s) => s.service === 'my-deployment'));
  } finally {
    await server.kill();
    await receiver.close();
  }
});

/** A failed run of `traced`: its trace ends at the failing node, which and the run span carry the error. */
async function assertFailedRunTrace(server: TestServer): Promise<void> {
  const { thread_id, run_id } = await finishedTracedRun(server, 'fail please');
  const got = (await (await server.api(`/threads/${thread_id}/runs/${run_id}`)).json()) as { status: string };
  assert.equal(got.status, 'error');
  const res = await server.api(`/threads/${thread_id}/runs/${run_id}/trace`);
  assert.equal(res.status, 200);
  const spans = (await res.json()) as (Span & { error?: string })[];
  assert.deepEqual(
    spans.filter((s) => s.kind === 'node').map((s) => `${s.name}:${s.status}`),
    ['agent:ok', 'fail:error'],
  );
  const failed = spans.find((s) => s.name === 'fail')!;
  assert.match(failed.error ?? '', /the fail node failed on purpose/);
  const root = spans.find((s) => s.kind === 'run')!;
  assert.equal(root.status, 'error');
  assert.match(root.error ?? '', /the fail node failed on purpose/);
}

test('a failed run keeps its trace when graphs run on the request loop (no run workers)', async () => {
  const server = await startTestServer({ project: { graphs }, env: { AGENTPLANE_RUN_WORKERS: '0' } });
  try {
    await assertFailedRunTrace(server);
  } finally {
    await server.close();
  }
});
