// Public discovery with declared security: whatever auth is in force the cards are readable
// without credentials, and they say how to authenticate — in the v1.0 shape (securitySchemes,
// securityRequirements) and the 0.3 shape (securitySchemes, security). A client that starts
// from the card alone learns the header and succeeds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { fixtureGraphs } from './harness.ts';
import { defaultClient, sendRequest, text, userMessage, artifactText } from './v1harness.ts';

const CARD = '/.well-known/agent-card.json?assistant_id=echo';

describe('API keys required (auth.agent_server, AGENTPLANE_AGENT_SERVER_AUTH)', () => {
  let app: InProcessApp;
  before(async () => {
    app = await areaApp('a2a', { project: { graphs: fixtureGraphs }, env: { AGENTPLANE_AGENT_SERVER_AUTH: '1' } });
  });
  after(() => app.close());

  test('every card path answers without credentials (and with a wrong key, as if none were sent)', async () => {
    for (const [where, headers] of [
      [CARD, { 'A2A-Version': '1.0' }],
      [CARD, {}],
      ['/.well-known/agent.json?assistant_id=echo', {}],
      [CARD, { 'x-api-key': 'not-a-key' }],
    ] as [string, Record<string, string>][]) {
      const res = await app.fetch(where, { headers });
      assert.equal(res.status, 200, `${where} ${JSON.stringify(headers)}`);
      await res.body?.cancel();
    }
    // the endpoint itself still needs a key
    const call = await app.fetch('/a2a/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: randomUUID() } }),
    });
    assert.equal(call.status, 401);
  });

  test("a tenant's own assistant: its card is found with its key, and is unknown without one (the same 404 as a missing one)", async () => {
    const created = await app.api('/assistants', { method: 'POST', json: { graph_id: 'echo', name: 'mine' } });
    assert.equal(created.status, 200);
    const { assistant_id } = (await created.json()) as { assistant_id: string };
    const withKey = await app.fetch(`/.well-known/agent-card.json?assistant_id=${assistant_id}`, { headers: { 'x-api-key': app.key } });
    assert.equal(withKey.status, 200);
    assert.equal(((await withKey.json()) as { name: string }).name, 'mine');
    const anonymous = await app.fetch(`/.well-known/agent-card.json?assistant_id=${assistant_id}`);
    const missing = await app.fetch(`/.well-known/agent-card.json?assistant_id=${randomUUID()}`);
    assert.equal(anonymous.status, 404);
    assert.equal(missing.status, 404);
    assert.deepEqual(Object.keys((await anonymous.json()) as object), Object.keys((await missing.json()) as object));
  });

  test('the v1.0 card declares X-Api-Key and bearer; a client using what it says succeeds', async () => {
    const card = (await (await app.fetch(CARD, { headers: { 'A2A-Version': '1.0' } })).json()) as any;
    assert.deepEqual(card.securitySchemes, {
      ApiKey: { apiKeySecurityScheme: { description: 'An agentplane API key.', location: 'header', name: 'X-Api-Key' } },
      BearerAuth: { httpAuthSecurityScheme: { description: 'An agentplane API key as a bearer token.', scheme: 'bearer' } },
    });
    assert.deepEqual(card.securityRequirements, [{ schemes: { ApiKey: { list: [] } } }, { schemes: { BearerAuth: { list: [] } } }]);
    // what a client does with the card alone: the first requirement's scheme says where the key goes
    const [first] = Object.keys(card.securityRequirements[0].schemes);
    const { location, name } = card.securitySchemes[first].apiKeySecurityScheme;
    assert.equal(location, 'header');
    const withKey = ((input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set(name, app.key);
      return app.fetch(input, { ...init, headers });
    }) as typeof fetch;
    const client = await defaultClient(app.url, 'echo', withKey);
    const task = await client.sendMessage(sendRequest(userMessage([text('hello')])));
    assert.ok('id' in task);
    assert.equal(artifactText(task), 'echo: hello');
  });

  test('the 0.3 card declares the same in its own shape; the bearer alternative works too', async () => {
    const card = (await (await app.fetch(CARD)).json()) as any;
    assert.deepEqual(card.securitySchemes, {
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An agentplane API key.' },
      BearerAuth: { type: 'http', scheme: 'bearer', description: 'An agentplane API key as a bearer token.' },
    });
    assert.deepEqual(card.security, [{ ApiKey: [] }, { BearerAuth: [] }]);
    assert.equal(card.securitySchemes.BearerAuth.scheme, 'bearer');
    const res = await app.fetch(card.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${app.key}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'hi' }] } },
      }),
    });
    const body = (await res.json()) as any;
    assert.equal(body.result.status.state, 'completed', JSON.stringify(body));
  });
});

describe("the project's custom auth (auth.path)", () => {
  let plain: InProcessApp;
  let described: InProcessApp;
  const auth = { path: path.join(ROOT, 'test/fixtures/auth/by-user.ts:auth') };
  before(async () => {
    plain = await areaApp('a2a', { project: { graphs: fixtureGraphs, auth } });
    described = await areaApp('a2a', {
      project: {
        graphs: fixtureGraphs,
        auth,
        a2a: {
          security_schemes: {
            Oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration', scopes: ['a2a'] },
          },
        },
      },
    });
  });
  after(async () => {
    await plain.close();
    await described.close();
  });

  test('undescribed, the card declares a bearer token; the card is read without one', async () => {
    const res = await plain.fetch(CARD, { headers: { 'A2A-Version': '1.0' } });
    assert.equal(res.status, 200);
    const card = (await res.json()) as any;
    assert.deepEqual(card.securitySchemes, {
      BearerAuth: { httpAuthSecurityScheme: { description: "A bearer token the project's auth accepts.", scheme: 'bearer' } },
    });
    assert.deepEqual(card.securityRequirements, [{ schemes: { BearerAuth: { list: [] } } }]);
  });

  test('described by the operator (a2a.security_schemes), the card declares OpenID Connect with its scopes, in both shapes', async () => {
    const v1 = (await (await described.fetch(CARD, { headers: { 'A2A-Version': '1.0' } })).json()) as any;
    assert.deepEqual(v1.securitySchemes, {
      Oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration' } },
    });
    assert.deepEqual(v1.securityRequirements, [{ schemes: { Oidc: { list: ['a2a'] } } }]);
    const v03 = (await (await described.fetch(CARD)).json()) as any;
    assert.deepEqual(v03.securitySchemes, { Oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration' } });
    assert.deepEqual(v03.security, [{ Oidc: ['a2a'] }]);
  });
});

test('with no auth in force the card declares no security (anonymous calls are served)', async () => {
  const app = await areaApp('a2a', { project: { graphs: fixtureGraphs } });
  try {
    const card = (await (await app.fetch(CARD, { headers: { 'A2A-Version': '1.0' } })).json()) as any;
    assert.equal(card.securitySchemes, undefined);
    assert.equal(card.securityRequirements, undefined);
  } finally {
    await app.close();
  }
});
