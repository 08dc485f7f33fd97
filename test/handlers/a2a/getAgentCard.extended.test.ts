// The authenticated extended card an operator configures (a2a.extended_card): the v1.0 cards
// declare it, and GetExtendedAgentCard answers it on every binding to an authenticated caller,
// as @a2a-js/sdk 1.3.0's client fetches it (Client.getAgentCard when capabilities.extendedAgentCard).
// Unconfigured it stays -32007 (v1.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { fixtureGraphs } from './harness.ts';
import { defaultClient, rpcV1 } from './v1harness.ts';

const EXTENDED = {
  description: 'The echo agent, as its members see it.',
  skills: [{ id: 'echo-admin', name: 'Echo administration', description: 'What members may ask of it.', tags: ['admin'] }],
};
const CARD = '/.well-known/agent-card.json?assistant_id=echo';

describe('with API keys (auth.agent_server)', () => {
  let app: InProcessApp;
  before(async () => {
    app = await areaApp('a2a', { project: { graphs: fixtureGraphs, a2a: { extended_card: EXTENDED } }, env: { AGENTPLANE_AGENT_SERVER_AUTH: '1' } });
  });
  after(() => app.close());
  const withKey = ((input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('x-api-key', app.key);
    return app.fetch(input, { ...init, headers });
  }) as typeof fetch;

  test('the public v1.0 card declares the extended card and shows only its own skill', async () => {
    const card = (await (await app.fetch(CARD, { headers: { 'A2A-Version': '1.0' } })).json()) as any;
    assert.equal(card.capabilities.extendedAgentCard, true);
    assert.deepEqual(
      card.skills.map((s: { id: string }) => s.id),
      ['echo-main'],
    );
  });

  test("the SDK client's getAgentCard fetches the extended card with the caller's key: the operator's description and skills", async () => {
    const client = await defaultClient(app.url, 'echo', withKey);
    const card = await client.getAgentCard();
    assert.equal(card.description, EXTENDED.description);
    assert.deepEqual(
      card.skills.map((s) => s.id),
      ['echo-main', 'echo-admin'],
    );
    assert.equal(card.capabilities?.extendedAgentCard, true);
  });

  test('HTTP+JSON and raw JSON-RPC answer the same card; without a key the call is refused as every A2A call', async () => {
    const rest = await withKey(`${app.url}/a2a/echo/v1/extendedAgentCard`, { headers: { 'A2A-Version': '1.0' } });
    assert.equal(rest.status, 200);
    const restCard = (await rest.json()) as any;
    assert.equal(restCard.description, EXTENDED.description);
    const rpc = await rpcV1(`${app.url}/a2a/echo`, 'GetExtendedAgentCard', {}, { send: withKey });
    assert.deepEqual(rpc.json.result, restCard);
    const anonymous = await rpcV1(`${app.url}/a2a/echo`, 'GetExtendedAgentCard', {}, { send: app.fetch });
    assert.equal(anonymous.status, 401);
  });
});

test('without auth nobody is authenticated: GetExtendedAgentCard answers the public card, as the SDK does', async () => {
  const app = await areaApp('a2a', { project: { graphs: fixtureGraphs, a2a: { extended_card: EXTENDED } } });
  try {
    const rpc = await rpcV1(`${app.url}/a2a/echo`, 'GetExtendedAgentCard', {}, { send: app.fetch });
    assert.equal(rpc.json.result.capabilities.extendedAgentCard, true);
    assert.notEqual(rpc.json.result.description, EXTENDED.description);
    assert.deepEqual(
      rpc.json.result.skills.map((s: { id: string }) => s.id),
      ['echo-main'],
    );
  } finally {
    await app.close();
  }
});
