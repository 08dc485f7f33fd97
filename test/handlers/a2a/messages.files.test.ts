// File parts over A2A 0.3 and their refusals on both versions: a file a client sends (inline
// bytes or a URL) reaches the graph as a LangChain content block and the graph's file blocks
// come back as file parts, in the task, its history and a stream's artifact. The v1.0 bindings'
// round trip through @a2a-js/sdk 1.3.0 is in bindings.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { assertValidResult, clientFor, errorCode, rpc as rpcOver, sseFrames } from './harness.ts';
import { rpcV1, v1Graphs } from './v1harness.ts';

let server: InProcessApp;

before(async () => {
  server = await areaApp('a2a', { project: { graphs: v1Graphs } });
});
after(() => server.close());

const endpoint = (assistant: string) => `${server.url}/a2a/${assistant}`;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]).toString('base64');

const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  message: { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts, ...extra },
});
const withFiles = () =>
  message([
    { kind: 'text', text: 'look' },
    { kind: 'file', file: { bytes: PNG, name: 'dot.png', mimeType: 'image/png' } },
    { kind: 'file', file: { uri: 'https://files.example/notes', name: 'notes' } },
  ]);
const SEEN = 'got image image/png data dot.png; file - url notes';
const FILES_BACK = [
  { kind: 'file', file: { bytes: PNG, name: 'dot.png', mimeType: 'image/png' } },
  { kind: 'file', file: { uri: 'https://files.example/notes', name: 'notes' } },
];

test('0.3 message/send: the files reach the graph as content blocks, come back as file parts, and stay in the history', async () => {
  const client = await clientFor(server.url, 'files', server.fetch);
  const sent = withFiles();
  const response: any = await client.sendMessage(sent as never);
  assert.equal(errorCode(response), undefined, JSON.stringify(response));
  assertValidResult('message/send', response.result);
  const task = response.result;
  assert.equal(task.status.state, 'completed');
  assert.deepEqual(task.artifacts[0].parts, [{ kind: 'text', text: SEEN }, ...FILES_BACK]);
  assert.deepEqual(task.status.message.parts, task.artifacts[0].parts);
  const mine = task.history.find((m: any) => m.messageId === sent.message.messageId);
  assert.deepEqual(mine.parts, sent.message.parts);
});

test('0.3 message/stream: the artifact update carries the file parts', async () => {
  const res = await server.fetch(endpoint('files'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: withFiles() }),
  });
  const events = (await sseFrames(res)).map((frame) => frame.result);
  for (const event of events) assertValidResult('message/stream', event);
  const artifact = events.find((e) => e.kind === 'artifact-update');
  assert.deepEqual(artifact?.artifact.parts, [{ kind: 'text', text: SEEN }, ...FILES_BACK]);
  assert.equal(events.at(-1).status.state, 'completed');
});

test('a file that cannot be read is -32602 on both versions and starts nothing; a file cannot answer an interrupt (-32005)', async () => {
  const threads = async () =>
    (
      (await (
        await server.fetch(`${server.url}/threads/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"limit": 1000}' })
      ).json()) as unknown[]
    ).length;
  const before = await threads();
  const bad: [string, unknown][] = [
    ['not base64', { kind: 'file', file: { bytes: 'no*base64', mimeType: 'image/png' } }],
    ['base64 cut short', { kind: 'file', file: { bytes: 'QUJDR' } }],
    ['a relative URL', { kind: 'file', file: { uri: 'notes.txt' } }],
  ];
  for (const [why, part] of bad) {
    const res = await rpcOver(endpoint('files'), { jsonrpc: '2.0', id: 1, method: 'message/send', params: message([part]) }, {}, server.fetch);
    assert.equal(errorCode(res.json), -32602, why);
    assert.match(res.json.error.message, /message\.parts\[0\]/, why);
  }
  const v1 = await rpcV1(
    endpoint('files'),
    'SendMessage',
    { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ raw: 'no*base64' }] } },
    { send: server.fetch },
  );
  assert.equal(v1.json.error.code, -32602);
  // a graph without messages has nowhere to put a file, as for text
  const data = await rpcV1(endpoint('data'), 'SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ raw: PNG }] } }, { send: server.fetch });
  assert.equal(data.json.error.code, -32602);
  assert.equal(await threads(), before, 'no refused message made a thread');

  const waiting = await rpcV1(
    endpoint('approval'),
    'SendMessage',
    { message: { messageId: 'a', role: 'ROLE_USER', parts: [{ text: 'email bob about lunch' }] } },
    { send: server.fetch },
  );
  assert.equal(waiting.json.result.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const answered = await rpcV1(
    endpoint('approval'),
    'SendMessage',
    { message: { messageId: 'b', role: 'ROLE_USER', taskId: waiting.json.result.task.id, parts: [{ raw: PNG, mediaType: 'image/png' }] } },
    { send: server.fetch },
  );
  assert.equal(answered.json.error.code, -32005);
});
