// Credentials and tenant isolation for deployments and OAuth providers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../support/server.ts';
import { areaApp } from '../support/area.ts';
import { dockerBody, json, type Api } from '../control-plane/support.ts';

const TENANT_A = '11111111-1111-4111-8111-111111111111';
const TENANT_B = '22222222-2222-4222-8222-222222222222';

describe('control plane: credentials and tenants', () => {
  let server: InProcessApp;
  let a: Api;
  let b: Api;
  before(async () => {
    server = await areaApp('control-plane', { env: { AGENTPLANE_API_KEYS: `key-a:${TENANT_A},key-both:${TENANT_A},key-both:${TENANT_B}` } });
    a = (p, init = {}) => server.api(p, { ...init, headers: { 'x-api-key': 'key-a' } });
    b = (p, init = {}) => server.api(p, { ...init, headers: { authorization: 'Bearer key-both', 'x-tenant-id': TENANT_B } });
  });
  after(() => server.close());

  it('answers 401 without valid credentials and 403 when a multi-workspace key names no tenant', async () => {
    const missing = await server.fetch(`${server.url}/v2/deployments`);
    assert.equal(missing.status, 401);
    assert.equal(typeof ((await missing.json()) as any).detail, 'string');
    const tenantOnly = await server.fetch(`${server.url}/v2/deployments`, { headers: { 'x-tenant-id': TENANT_A } });
    assert.equal(tenantOnly.status, 401);
    await tenantOnly.body?.cancel();
    await json(await server.api('/v2/deployments', { headers: { 'x-api-key': 'wrong' } }), 401);
    await json(await server.api('/v2/auth/providers', { headers: { 'x-api-key': 'wrong' } }), 401);
    await json(await server.api('/v2/deployments', { headers: { 'x-api-key': 'key-both' } }), 403);
  });

  it('shows a tenant only its own deployments', async () => {
    const created = await json(await a('/v2/deployments', { method: 'POST', json: dockerBody('shared-name') }), 201);
    assert.equal(created.tenant_id, TENANT_A);
    const notFound = { detail: `Deployment ID ${created.id} not found.` };
    assert.deepEqual(await json(await b(`/v2/deployments/${created.id}`), 404), notFound);
    assert.deepEqual(await json(await b(`/v2/deployments/${created.id}`, { method: 'PATCH', json: {} }), 404), notFound);
    assert.deepEqual(await json(await b(`/v2/deployments/${created.id}/revisions`), 404), notFound);
    assert.deepEqual(await json(await b(`/v2/deployments/${created.id}/revisions/${created.latest_revision_id}`), 404), notFound);
    assert.deepEqual(await json(await b(`/v2/deployments/${created.id}/revisions/${created.latest_revision_id}/redeploy`, { method: 'POST' }), 404), notFound);
    assert.deepEqual(await json(await b(`/v2/deployments/${created.id}`, { method: 'DELETE' }), 404), notFound);
    assert.deepEqual((await json(await b('/v2/deployments'), 200)).resources, []);
    assert.deepEqual((await json(await b(`/v2/deployments?deployment_ids=${created.id}`), 200)).resources, []);
    // names are unique per tenant, not across tenants
    const other = await json(await b('/v2/deployments', { method: 'POST', json: dockerBody('shared-name') }), 201);
    assert.equal(other.tenant_id, TENANT_B);
    // the same key reaches tenant A when it asks for it
    const viaBoth = await json(await server.api(`/v2/deployments/${created.id}`, { headers: { 'x-api-key': 'key-both', 'x-tenant-id': TENANT_A } }), 200);
    assert.equal(viaBoth.id, created.id);
  });

  it('manages OAuth providers per tenant and never returns the client secret', async () => {
    const slack = {
      provider_id: 'slack',
      name: 'Slack',
      client_id: '123.456',
      client_secret: 'very-secret-value',
      auth_url: 'https://slack.com/oauth/v2/authorize',
      token_url: 'https://slack.com/api/oauth.v2.access',
      provider_type: 'slack',
    };
    const created = await json(await a('/v2/auth/providers', { method: 'POST', json: slack }), 200);
    assert.equal(created.organization_id, TENANT_A);
    assert.equal(created.uses_pkce, false);
    assert.equal(created.code_challenge_method, 'S256');
    assert.equal(created.token_endpoint_auth_method, 'client_secret_post');
    assert.equal(created.is_dynamic_client, false);
    assert.ok(!JSON.stringify(created).includes('very-secret-value'));
    assert.equal((await json(await a('/v2/auth/providers', { method: 'POST', json: slack }), 409)).detail, 'Provider ID slack already exists.');
    await json(await a('/v2/auth/providers', { method: 'POST', json: { ...slack, provider_id: 'microsoft', provider_type: 'microsoft' } }), 200);
    const listed = await json(await a('/v2/auth/providers'), 200);
    assert.deepEqual(
      listed.map((p: any) => p.provider_id),
      ['microsoft', 'slack'],
    );

    const patched = await json(
      await a('/v2/auth/providers/slack', { method: 'PATCH', json: { name: 'Slack (acme)', client_secret: 'rotated-secret', uses_pkce: true } }),
      200,
    );
    assert.equal(patched.name, 'Slack (acme)');
    assert.equal(patched.uses_pkce, true);
    assert.equal(patched.client_id, '123.456');
    assert.ok(!JSON.stringify(patched).includes('rotated-secret'));
    assert.equal((await json(await a('/v2/auth/providers/slack'), 200)).name, 'Slack (acme)');

    assert.deepEqual(await json(await b('/v2/auth/providers/slack'), 404), { detail: 'Provider ID slack not found.' });
    assert.deepEqual(await json(await b('/v2/auth/providers'), 200), []);
    await json(await b('/v2/auth/providers/slack', { method: 'DELETE' }), 404);
    await json(await b('/v2/auth/providers', { method: 'POST', json: slack }), 200);

    assert.deepEqual(await json(await a('/v2/auth/providers/slack', { method: 'DELETE' }), 200), {});
    await json(await a('/v2/auth/providers/slack'), 404);
    assert.equal((await json(await b('/v2/auth/providers/slack'), 200)).organization_id, TENANT_B);
  });
});
