// Agent cards and the http.disable_a2a switch. The test server validates every reply
// against the spec, so a 200 here is also a well-formed AgentCard.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { fixtureGraphs, rpc } from './harness.ts';

const project = { graphs: fixtureGraphs };
let server: InProcessApp;

before(async () => {
  server = await areaApp('a2a', { project, dataDir: null });
});
after(() => server.close());

const card = async (query = '', srv = server) => {
  const res = await srv.fetch(`${srv.url}/.well-known/agent-card.json${query}`);
  return { status: res.status, body: (await res.json()) as any };
};

test('the card of an assistant names it, points at its A2A endpoint and declares streaming', async () => {
  const { status, body } = await card('?assistant_id=echo');
  assert.equal(status, 200);
  assert.equal(body.name, 'echo');
  assert.equal(body.description, 'echo assistant');
  assert.equal(body.url, `${server.url}/a2a/echo`);
  assert.equal(body.protocolVersion, '0.3.0');
  assert.equal(body.preferredTransport, 'JSONRPC');
  assert.equal(body.version, '0.1.0');
  assert.equal(body.capabilities.streaming, true);
  assert.deepEqual(body.defaultInputModes, ['application/json', 'text/plain']);
  assert.deepEqual(body.defaultOutputModes, ['application/json', 'text/plain']);
  assert.equal(body.skills[0].id, 'echo-main');
  assert.deepEqual(body.skills[0].tags, ['assistant', 'langgraph']);
});

test('the card keeps the assistant id as given (UUID or graph name) in its url', async () => {
  const search = await server.fetch(`${server.url}/assistants/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ graph_id: 'echo' }),
  });
  const echoId: string = ((await search.json()) as { assistant_id: string }[])[0].assistant_id;
  const { body } = await card(`?assistant_id=${echoId}`);
  assert.equal(body.name, 'echo');
  assert.equal(body.url, `${server.url}/a2a/${echoId}`);
});

test('the bare well-known path describes the first graph; an unknown assistant is 404', async () => {
  const { status, body } = await card();
  assert.equal(status, 200);
  assert.equal(body.url, `${server.url}/a2a/echo`);
  const missing = await card('?assistant_id=nope');
  assert.equal(missing.status, 404);
  assert.match(missing.body.detail, /nope/);
});

test('an assistant whose state has no messages says so and offers JSON input only', async () => {
  const { body } = await card('?assistant_id=data');
  assert.match(body.description, /no 'messages' key/);
  assert.deepEqual(body.defaultInputModes, ['application/json']);
});

test('a2a.default_assistant picks the default card, and the public URL is honoured', async () => {
  const other = await areaApp('a2a', {
    project: { ...project, a2a: { default_assistant: 'data' } },
    env: { AGENTPLANE_PUBLIC_URL: 'https://agents.example.com' },
    dataDir: null,
  });
  try {
    const { body } = await card('', other);
    assert.equal(body.name, 'data');
    assert.equal(body.url, 'https://agents.example.com/a2a/data');
  } finally {
    await other.close();
  }
});

test('http.disable_a2a removes the card and the JSON-RPC endpoint and nothing else', async () => {
  const off = await areaApp('a2a', { project: { ...project, http: { disable_a2a: true } }, dataDir: null });
  try {
    assert.equal((await card('?assistant_id=echo', off)).status, 404);
    assert.equal((await card('', off)).status, 404);
    assert.equal((await off.fetch(`${off.url}/.well-known/agent.json`)).status, 404);
    assert.equal((await off.fetch(`${off.url}/.well-known/agent-card-jwks.json`)).status, 404);
    const call = await rpc(`${off.url}/a2a/echo`, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }, {}, off.fetch);
    assert.equal(call.status, 404);
    const health = await off.fetch(`${off.url}/ok`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    await off.close();
  }
});

test('/.well-known/agent.json (A2A 0.2’s path) is the 0.3 card, whatever version is asked for; 404 for an unknown assistant', async () => {
  const { body: expected } = await card('?assistant_id=echo');
  for (const headers of [{}, { 'A2A-Version': '1.0' }] as Record<string, string>[]) {
    const res = await server.fetch(`${server.url}/.well-known/agent.json?assistant_id=echo`, { headers });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), expected);
  }
  const bare = await server.fetch(`${server.url}/.well-known/agent.json`);
  assert.equal(((await bare.json()) as { name: string }).name, 'echo', 'the default assistant: the first graph');
  assert.equal((await server.fetch(`${server.url}/.well-known/agent.json?assistant_id=nope`)).status, 404);
});

test('without a signing key the card is unsigned and the JWKS path is 404', async () => {
  assert.equal((await card('?assistant_id=echo')).body.signatures, undefined);
  const res = await server.fetch(`${server.url}/.well-known/agent-card-jwks.json`);
  assert.equal(res.status, 404);
  assert.match(((await res.json()) as { detail: string }).detail, /AGENTPLANE_A2A_SIGNING_KEY/);
});

test('a repeated assistant_id is 422 on either card path (one assistant is named, or none)', async () => {
  for (const where of ['/.well-known/agent.json', '/.well-known/agent-card.json']) {
    const res = await server.fetch(`${server.url}${where}?assistant_id=echo&assistant_id=data`);
    assert.equal(res.status, 422, where);
    await res.body?.cancel();
  }
});
