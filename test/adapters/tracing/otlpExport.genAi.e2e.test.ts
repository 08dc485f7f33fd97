// The OTLP export of a run follows the OpenTelemetry GenAI semantic conventions: an
// `invoke_agent <graph>` span per run (the thread as gen_ai.conversation.id), a span per node,
// `chat <model>` per model call (provider, the model's own name, token usage, messages with
// their tool calls) and `execute_tool <tool>` per tool call (name, call id, arguments, result),
// each typed for LangSmith's OTLP ingest (langsmith.span.kind); an interrupt is marked, an
// error is status ERROR with an exception event carrying the stack. A conversation's content
// is exported only with AGENTPLANE_TRACE_CONTENT=1 (off by default, as the conventions ask).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { otlpReceiver, type ReceivedSpan } from '../../support/otlpReceiver.ts';
import { ROOT, spawnServer, tempDir, type ChildServer } from '../../support/server.ts';

const graphs = {
  agent: path.join(ROOT, 'examples/graphs/agent.ts') + ':agent',
  approval: path.join(ROOT, 'examples/graphs/approval.ts') + ':approval',
  traced: path.join(ROOT, 'test/fixtures/graphs/traced.ts') + ':traced',
};
const CLIENT = 3;
const ERROR = 2;

type Receiver = Awaited<ReturnType<typeof otlpReceiver>>;

async function tracingServer(env: Record<string, string>): Promise<{ server: ChildServer; receiver: Receiver }> {
  const receiver = await otlpReceiver();
  const projectDir = tempDir();
  fs.writeFileSync(path.join(projectDir, 'agentplane.json'), JSON.stringify({ graphs }));
  const server = await spawnServer(
    ['--memory'],
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, AGENTPLANE_DEPLOYMENT_NAME: 'genai-deployment', ...env },
    projectDir,
  );
  return { server, receiver };
}

/** Runs `assistant` on a new thread and waits for its `invoke_agent` span to be exported; the spans of that run. */
async function exportedRun(server: ChildServer, receiver: Receiver, assistant: string, content: string) {
  const post = async (pathname: string, body: unknown) =>
    (await (
      await fetch(server.url + pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    ).json()) as Record<string, string>;
  const thread = await post('/threads', {});
  await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: assistant, input: { messages: [{ role: 'user', content }] } });
  const root = () => receiver.spans().find((s) => s.name === `invoke_agent ${assistant}` && s.attributes['gen_ai.conversation.id'] === thread.thread_id);
  // a server that names its spans otherwise fails here (with what it sent), not at the suite's end
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    receiver.arrived(() => root() !== undefined),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no invoke_agent ${assistant} span; received: ${receiver.spans().map((s) => s.name)}`)), 30_000);
    }),
  ]).finally(() => clearTimeout(timer));
  const runId = root()!.attributes['langgraph.run_id'];
  // the whole run's spans are exported in one batch with (or before) its own span
  const spans = receiver.spans().filter((s) => s.attributes['langgraph.run_id'] === runId || s.parentSpanId !== '');
  const inRun = new Set([root()!.spanId]);
  for (let grew = true; grew;) {
    grew = false;
    for (const s of spans) if (!inRun.has(s.spanId) && inRun.has(s.parentSpanId)) grew = Boolean(inRun.add(s.spanId));
  }
  return { threadId: thread.thread_id, root: root()!, spans: spans.filter((s) => inRun.has(s.spanId)) };
}

const json = (value: unknown) => JSON.parse(String(value)) as Array<{ role: string; parts: Array<Record<string, unknown>>; finish_reason?: string }>;
const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

// the two servers start at once (a server's start is most of this file's time)
let capturing: Promise<{ server: ChildServer; receiver: Receiver }>;
let notCapturing: Promise<{ server: ChildServer; receiver: Receiver }>;
before(() => {
  capturing = tracingServer({ AGENTPLANE_TRACE_CONTENT: '1' });
  notCapturing = tracingServer({});
});
after(async () => {
  for (const started of [capturing, notCapturing]) {
    const { server, receiver } = await started;
    await server.kill();
    await receiver.close();
  }
});

describe('GenAI spans with content capture on', () => {
  let server: ChildServer;
  let receiver: Receiver;
  before(async () => ({ server, receiver } = await capturing));

  test('the shipped `agent` graph: invoke_agent → nodes → chat (with its tool call) and execute_tool, per the conventions', async () => {
    const { threadId, root, spans } = await exportedRun(server, receiver, 'agent', 'what is 6 * 7?');
    assert.equal(root.parentSpanId, '');
    assert.deepEqual(
      {
        op: root.attributes['gen_ai.operation.name'],
        agent: root.attributes['gen_ai.agent.name'],
        conversation: root.attributes['gen_ai.conversation.id'],
        kind: root.attributes['langsmith.span.kind'],
      },
      { op: 'invoke_agent', agent: 'agent', conversation: threadId, kind: 'chain' },
    );
    assert.equal(root.resource['service.name'], 'genai-deployment');
    assert.equal(root.resource['deployment.name'], 'genai-deployment');
    assert.match(String(root.resource['service.version']), /^\d+\.\d+\.\d+/);

    // agent → tools → agent, each a node span under the run
    const nodes = spans.filter((s) => s.attributes['langgraph.node'] !== undefined);
    assert.deepEqual(nodes.map((s) => s.name).sort(), ['agent', 'agent', 'tools']);
    for (const node of nodes) {
      assert.equal(node.parentSpanId, root.spanId);
      assert.equal(node.attributes['langsmith.span.kind'], 'chain');
      assert.match(String(node.attributes['input.value']), /6 \* 7/);
      assert.ok(JSON.parse(String(node.attributes['output.value'])));
    }

    // two model calls, each in an `agent` node: the first asks for the calculator, the second answers
    const chats = byName(spans, 'chat scripted-calculator');
    assert.equal(chats.length, 2);
    const agentNodes = new Set(nodes.filter((n) => n.name === 'agent').map((n) => n.spanId));
    for (const chat of chats) {
      assert.ok(agentNodes.has(chat.parentSpanId));
      assert.equal(chat.kind, CLIENT);
      assert.equal(chat.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(chat.attributes['gen_ai.provider.name'], 'agentplane');
      assert.equal(chat.attributes['gen_ai.request.model'], 'scripted-calculator');
      assert.equal(chat.attributes['langsmith.span.kind'], 'llm');
    }
    const [asking, answering] = chats.sort((a, b) => json(a.attributes['gen_ai.input.messages']).length - json(b.attributes['gen_ai.input.messages']).length);
    assert.deepEqual(json(asking.attributes['gen_ai.input.messages']), [{ role: 'user', parts: [{ type: 'text', content: 'what is 6 * 7?' }] }]);
    const [call] = json(asking.attributes['gen_ai.output.messages']);
    assert.equal(call.role, 'assistant');
    assert.deepEqual(call.parts, [{ type: 'tool_call', id: 'call_1', name: 'calculator', arguments: { input: 'what is 6 * 7?' } }]);
    const history = json(answering.attributes['gen_ai.input.messages']);
    assert.deepEqual(
      history.map((m) => m.role),
      ['user', 'assistant', 'tool'],
    );
    assert.deepEqual(history[2].parts, [{ type: 'tool_call_response', id: 'call_1', response: '42' }]);
    assert.deepEqual(json(answering.attributes['gen_ai.output.messages'])[0].parts, [{ type: 'text', content: 'The answer is 42.' }]);

    // the tool call, in the `tools` node
    const [tool] = byName(spans, 'execute_tool calculator');
    assert.equal(tool.parentSpanId, nodes.find((n) => n.name === 'tools')!.spanId);
    assert.deepEqual(
      {
        op: tool.attributes['gen_ai.operation.name'],
        name: tool.attributes['gen_ai.tool.name'],
        id: tool.attributes['gen_ai.tool.call.id'],
        result: tool.attributes['gen_ai.tool.call.result'],
        kind: tool.attributes['langsmith.span.kind'],
      },
      { op: 'execute_tool', name: 'calculator', id: 'call_1', result: '42', kind: 'tool' },
    );
    assert.deepEqual(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments'])), { input: 'what is 6 * 7?' });
    assert.ok(spans.every((s) => s.status.code !== ERROR));
  });

  test('an interrupt marks the node that paused and the run, without an error', async () => {
    const { root, spans } = await exportedRun(server, receiver, 'approval', 'Tell the team we ship Friday');
    const [review] = byName(spans, 'review');
    for (const span of [review, root]) {
      assert.equal(span.attributes['langgraph.interrupted'], true);
      assert.ok(span.events.some((e) => e.name === 'langgraph.interrupt'));
      assert.notEqual(span.status.code, ERROR);
    }
    assert.match(String(review.attributes['langgraph.interrupt.value']), /ship Friday/);
  });
});

describe('GenAI spans with content capture off (the default)', () => {
  let server: ChildServer;
  let receiver: Receiver;
  before(async () => ({ server, receiver } = await notCapturing));

  test('a failing graph: the failing node and the run are status ERROR with an exception event and its stack; no content leaves', async () => {
    const { root, spans } = await exportedRun(server, receiver, 'traced', 'fail please');
    const [fail] = byName(spans, 'fail');
    for (const span of [fail, root]) {
      assert.equal(span.status.code, ERROR);
      assert.match(span.status.message ?? '', /the fail node failed on purpose/);
      assert.equal(span.attributes['error.type'], 'Error');
      const exception = span.events.find((e) => e.name === 'exception');
      assert.ok(exception, `${span.name} has an exception event`);
      assert.equal(exception.attributes['exception.message'], 'the fail node failed on purpose');
      assert.match(String(exception.attributes['exception.stacktrace']), /traced\.ts/);
    }
    assert.equal(fail.parentSpanId, root.spanId);
    // the model call before it is typed and named, but its messages stay in the process
    const [chat] = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    assert.equal(chat.name, `chat ${String(chat.attributes['gen_ai.request.model'])}`);
    assert.equal(typeof chat.attributes['gen_ai.provider.name'], 'string');
    assert.equal(chat.attributes['langsmith.span.kind'], 'llm');
    for (const span of spans)
      for (const key of ['gen_ai.input.messages', 'gen_ai.output.messages', 'input.value', 'output.value'])
        assert.equal(span.attributes[key], undefined, `${span.name} exports ${key}`);
  });
});
