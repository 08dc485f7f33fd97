// Listeners, attacked. Their own credential: an API key of its tenant manages the listener but
// can no longer act as it (the heartbeat carries its deployments' secrets), a listener's token
// opens that listener only, a rotated token is dead at once, the token is shown once and never
// stored or answered again, and no answer but the listener's heartbeat carries a secret. And a
// flooding listener: oversized batches are refused whole, a listener past its rate gets 429
// with Retry-After and nothing of the batch is stored.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

const KEY = `lc-${randomUUID()}`;
const TENANT = randomUUID();
const OTHER_KEY = `lc-other-${randomUUID()}`;
const OTHER_TENANT = randomUUID();
const SECRET = `sk-listener-${randomUUID()}`;

interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

describe('listener credentials', () => {
  let server: InProcessApp;
  before(async () => {
    server = await areaApp('control-plane', { env: { AGENTPLANE_API_KEYS: `${KEY}:${TENANT},${OTHER_KEY}:${OTHER_TENANT}` } });
  });
  after(() => server?.close());

  /** A call with exactly the credentials given: `key` (X-Api-Key), `token` (X-Listener-Token), or none. */
  const call = async (method: string, pathname: string, creds: { key?: string; token?: string } = {}, json?: unknown): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (creds.key) headers['x-api-key'] = creds.key;
    if (creds.token) headers['x-listener-token'] = creds.token;
    if (json !== undefined) headers['content-type'] = 'application/json';
    const res = await server.fetch(server.url + pathname, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, text, headers: res.headers };
  };
  const createListener = async (key: string, computeId = `c-${randomUUID()}`) => {
    const created = await call('POST', '/v2/listeners', { key }, { compute_type: 'simulated', compute_id: computeId, compute_config: {} });
    assert.equal(created.status, 201, created.text);
    return created.body as { id: string; token: string };
  };
  const assignDeployment = async (listenerId: string) => {
    const made = await call(
      'POST',
      '/v2/deployments',
      { key: KEY },
      {
        name: `lc-${randomUUID().slice(0, 8)}`,
        source: 'external_docker',
        source_config: { listener_id: listenerId },
        source_revision_config: { image_uri: 'registry.example.internal/agent:1.0' },
        secrets: [{ name: 'OPENAI_API_KEY', value: SECRET }],
      },
    );
    assert.equal(made.status, 201, made.text);
    assert.ok(!made.text.includes(SECRET), 'the create answer masks the secret');
    return made.body as { id: string; latest_revision_id: string };
  };
  /** Every operation a listener calls as the listener, for one listener id. */
  const listenerCalls = (listenerId: string, revisionId: string, deploymentId: string) =>
    [
      ['POST', `/v2/listeners/${listenerId}/heartbeat`, undefined],
      ['POST', `/v2/listeners/${listenerId}/revisions/${revisionId}/status`, { status: 'DEPLOYED' }],
      ['POST', `/v2/listeners/${listenerId}/revisions/${revisionId}/logs`, { type: 'build', from: 0, logs: [{ timestamp: null, level: null, message: 'x' }] }],
      ['POST', `/v2/listeners/${listenerId}/deployments/${deploymentId}/removed`, undefined],
    ] as const;

  it('issues a token once at creation, keeps only its hash, and answers it nowhere else', async () => {
    const listener = await createListener(KEY);
    assert.match(listener.token, /^aplt_[A-Za-z0-9_-]{43}$/);
    for (const answer of [
      await call('GET', `/v2/listeners/${listener.id}`, { key: KEY }),
      await call('GET', '/v2/listeners?limit=100', { key: KEY }),
      await call('PATCH', `/v2/listeners/${listener.id}`, { key: KEY }, { version: '2' }),
      await call('POST', `/v2/listeners/${listener.id}/heartbeat`, { token: listener.token }),
    ]) {
      assert.ok(answer.status < 300, answer.text);
      assert.ok(!answer.text.includes(listener.token), `the token is shown once: ${answer.text}`);
      assert.ok(!answer.text.includes('token_hash'), answer.text);
    }
    // neither the token nor anything that can be replayed as it lands on disk
    if (server.dataDir) {
      await server.fetch(`${server.url}/ok`);
      const files = fs.readdirSync(server.dataDir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
      for (const f of files) assert.ok(!fs.readFileSync(path.join(f.parentPath, f.name), 'utf8').includes(listener.token), `${f.name} holds the token`);
    }
  });

  it("refuses an API key of the listener's own tenant on every listener-side operation, and answers secrets only to the token", async () => {
    const listener = await createListener(KEY);
    const deployment = await assignDeployment(listener.id);
    for (const [method, pathname, json] of listenerCalls(listener.id, deployment.latest_revision_id, deployment.id)) {
      for (const creds of [{ key: KEY }, {}, { key: OTHER_KEY }]) {
        const refused = await call(method, pathname, creds, json);
        assert.equal(refused.status, 401, `${method} ${pathname} with ${JSON.stringify(Object.keys(creds))}: ${refused.text}`);
        assert.ok(!refused.text.includes(SECRET));
      }
      // an API key sent as a bearer token, or in the listener's own header, is no listener token either
      const asBearer = await server.fetch(server.url + pathname, { method, headers: { authorization: `Bearer ${KEY}` } });
      assert.equal(asBearer.status, 401);
      assert.equal((await call(method, pathname, { token: KEY }, json)).status, 401);
    }
    // the listener's token opens its heartbeat, which carries the secret in clear
    const beat = await call('POST', `/v2/listeners/${listener.id}/heartbeat`, { token: listener.token });
    assert.equal(beat.status, 200, beat.text);
    assert.equal(beat.body.listener.status, 'CONNECTED');
    assert.deepEqual(beat.body.assignments[0].secrets, [{ name: 'OPENAI_API_KEY', value: SECRET }]);
    // and no answer to the tenant's key carries it
    for (const pathname of [
      `/v2/deployments/${deployment.id}`,
      '/v2/deployments?limit=100',
      `/v2/deployments/${deployment.id}/revisions`,
      `/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`,
      `/v2/listeners/${listener.id}`,
      '/v2/listeners',
    ]) {
      const read = await call('GET', pathname, { key: KEY });
      assert.equal(read.status, 200, read.text);
      assert.ok(!read.text.includes(SECRET), `${pathname} leaks the secret: ${read.text}`);
    }
    const rotated = await call('POST', `/v2/listeners/${listener.id}/token`, { key: KEY });
    assert.ok(!rotated.text.includes(SECRET));
  });

  it("a listener's token opens no other listener: the same answer as a listener that does not exist", async () => {
    const mine = await createListener(KEY);
    const sibling = await createListener(KEY);
    const foreign = await createListener(OTHER_KEY);
    const deployment = await assignDeployment(sibling.id);
    const nowhere = randomUUID();
    for (const [i, [method, pathname, json]] of listenerCalls(sibling.id, deployment.latest_revision_id, deployment.id).entries()) {
      const withMine = await call(method, pathname, { token: mine.token }, json);
      const withForeign = await call(method, pathname, { token: foreign.token }, json);
      const [, nowherePath] = listenerCalls(nowhere, deployment.latest_revision_id, deployment.id)[i];
      const onNowhere = await call(method, nowherePath, { token: mine.token }, json);
      assert.equal(withMine.status, 401, withMine.text);
      assert.deepEqual([withForeign.status, withForeign.body], [withMine.status, withMine.body]);
      assert.deepEqual([onNowhere.status, onNowhere.body], [withMine.status, withMine.body]);
    }
    // its own token reports only on what is assigned to it
    const notMine = await call(
      'POST',
      `/v2/listeners/${mine.id}/revisions/${deployment.latest_revision_id}/status`,
      { token: mine.token },
      { status: 'DEPLOYED' },
    );
    assert.deepEqual([notMine.status, notMine.body.detail], [404, `Revision ID ${deployment.latest_revision_id} not found.`]);
    const revision = await call('GET', `/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`, { key: KEY });
    assert.notEqual(revision.body.status, 'DEPLOYED', 'nothing another listener sent was taken');
  });

  it('a rotated token is refused at once; only the listener’s tenant rotates it, with an API key', async () => {
    const listener = await createListener(KEY);
    const deployment = await assignDeployment(listener.id);
    const rotated = await call('POST', `/v2/listeners/${listener.id}/token`, { key: KEY });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.body.id, listener.id);
    assert.notEqual(rotated.body.token, listener.token);
    for (const [method, pathname, json] of listenerCalls(listener.id, deployment.latest_revision_id, deployment.id)) {
      assert.equal((await call(method, pathname, { token: listener.token }, json)).status, 401, `${pathname} with the old token`);
    }
    const beat = await call('POST', `/v2/listeners/${listener.id}/heartbeat`, { token: rotated.body.token });
    assert.equal(beat.status, 200, beat.text);
    const status = await call(
      'POST',
      `/v2/listeners/${listener.id}/revisions/${deployment.latest_revision_id}/status`,
      { token: rotated.body.token },
      { status: 'DEPLOYED' },
    );
    assert.deepEqual([status.status, status.body.status], [200, 'DEPLOYED']);
    // another tenant's key finds no such listener; the listener's own token cannot rotate itself
    const foreign = await call('POST', `/v2/listeners/${listener.id}/token`, { key: OTHER_KEY });
    assert.deepEqual([foreign.status, foreign.body.detail], [404, `Listener ID ${listener.id} not found.`]);
    assert.equal((await call('POST', `/v2/listeners/${listener.id}/token`, { token: rotated.body.token })).status, 401);
    assert.equal(
      (await call('POST', `/v2/listeners/${listener.id}/heartbeat`, { token: rotated.body.token })).status,
      200,
      'refused rotations changed nothing',
    );
    // a deleted listener's token opens nothing either
    assert.equal((await call('DELETE', `/v2/deployments/${deployment.id}`, { key: KEY })).status, 204);
    assert.equal((await call('DELETE', `/v2/deployments/${deployment.id}?force=true`, { key: KEY })).status, 204);
    assert.equal((await call('DELETE', `/v2/listeners/${listener.id}`, { key: KEY })).status, 204);
    assert.equal((await call('POST', `/v2/listeners/${listener.id}/heartbeat`, { token: rotated.body.token })).status, 401);
  });

  it('refuses oversized batches and a listener past its rate, storing nothing of them', { timeout: 120_000 }, async () => {
    const listener = await createListener(KEY);
    const deployment = await assignDeployment(listener.id);
    const logsPath = `/v2/listeners/${listener.id}/revisions/${deployment.latest_revision_id}/logs`;
    const lines = (from: number, count: number, width: number) =>
      Array.from({ length: count }, (_, i) => ({ timestamp: null, level: 'INFO', message: `${String(from + i).padStart(8, '0')} ${'x'.repeat(width)}` }));
    const send = (from: number, logs: unknown[]) => call('POST', logsPath, { token: listener.token }, { type: 'deploy', from, logs });

    const tooMany = await send(0, lines(0, 1001, 1));
    assert.equal(tooMany.status, 422, tooMany.text);
    assert.deepEqual(tooMany.body.detail[0].loc, ['body', 'logs']);
    const tooLarge = await send(0, lines(0, 900, 1200));
    assert.equal(tooLarge.status, 413, tooLarge.text);
    assert.match(tooLarge.body.detail, /larger than \d+ bytes/);

    // ~900 KB a batch until refused: the burst (8 MiB) plus what the rate refilled meanwhile
    const started = Date.now();
    let from = 0;
    let refused: Answer | undefined;
    for (let i = 0; i < 40 && !refused; i += 1) {
      const answer = await send(from, lines(from, 1000, 900));
      if (answer.status === 429) refused = answer;
      else {
        assert.equal(answer.status, 204, answer.text);
        from += 1000;
      }
    }
    assert.ok(refused, 'a flooding listener is refused');
    // (the refusal itself says when to come back: a second batch sent after it may find the
    // rate refilled on a loaded machine, where one batch takes most of a second to arrive)
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.match(refused.body.detail, /faster than 1 MiB a second/);
    const accepted = from * 910;
    const allowed = 8 * 1024 * 1024 + ((Date.now() - started) / 1000) * 1024 * 1024;
    assert.ok(accepted <= allowed, `accepted ${accepted} bytes, allowed ${allowed}`);
    // nothing of a refused batch was stored: the last line kept is the last accepted
    const last = await call('GET', `/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}/logs?type=deploy&order=desc&limit=1`, {
      key: KEY,
    });
    assert.equal(last.status, 200, last.text);
    assert.equal(last.body.logs[0].message.slice(0, 8), String(from - 1).padStart(8, '0'));
  });
  it('a report cannot move a revision backwards, nor out of a finished status: 409, and the revision stays', async () => {
    const listener = await createListener(KEY);
    const deployment = await assignDeployment(listener.id);
    const statusPath = `/v2/listeners/${listener.id}/revisions/${deployment.latest_revision_id}/status`;
    const revisionPath = `/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`;
    assert.equal((await call('POST', statusPath, { token: listener.token }, { status: 'BUILDING' })).status, 200);
    assert.equal((await call('POST', statusPath, { token: listener.token }, { status: 'QUEUED' })).status, 409, 'BUILDING back to QUEUED');
    assert.equal((await call('POST', statusPath, { token: listener.token }, { status: 'DEPLOYED', custom_url: 'http://10.0.3.7:9101' })).status, 200);
    for (const status of ['BUILDING', 'CREATING', 'DEPLOYING', 'DEPLOY_FAILED', 'UNKNOWN', 'INTERRUPTED']) {
      const refused = await call('POST', statusPath, { token: listener.token }, { status, status_message: 'rewritten' });
      assert.equal(refused.status, 409, `DEPLOYED then ${status}: ${refused.text}`);
      assert.match(refused.body.detail, /only moves forward/);
    }
    // the same status again is fine (a message, a commit)
    assert.equal((await call('POST', statusPath, { token: listener.token }, { status: 'DEPLOYED', custom_url: 'http://10.0.3.7:9101' })).status, 200);
    const revision = await call('GET', revisionPath, { key: KEY });
    assert.equal(revision.body.status, 'DEPLOYED');
    assert.equal(revision.body.status_message, null);
    const after = await call('GET', `/v2/deployments/${deployment.id}`, { key: KEY });
    assert.equal(after.body.active_revision_id, deployment.latest_revision_id);
  });

  it('a report holds custom_url to the rule of create and PATCH: javascript: and data: URLs are 422 and change nothing', async () => {
    const listener = await createListener(KEY);
    const deployment = await assignDeployment(listener.id);
    const statusPath = `/v2/listeners/${listener.id}/revisions/${deployment.latest_revision_id}/status`;
    for (const url of [
      'javascript:alert(document.cookie)',
      'JavaScript:fetch("//evil.example")',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
    ]) {
      const refused = await call('POST', statusPath, { token: listener.token }, { status: 'DEPLOYED', custom_url: url });
      assert.equal(refused.status, 422, `${url}: ${refused.text}`);
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'custom_url']);
    }
    const after = await call('GET', `/v2/deployments/${deployment.id}`, { key: KEY });
    assert.equal(after.body.source_config.custom_url ?? null, null);
    assert.equal(after.body.active_revision_id ?? null, null);
    const revision = await call('GET', `/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}`, { key: KEY });
    assert.notEqual(revision.body.status, 'DEPLOYED');
  });
});
