// What a tenant puts in a deployment that the local deployer hands to git or reads from the
// checkout: a repo_url that git would take for an option, credentials written into repo_url,
// and a project file or graph module that is a symbolic link out of the repository.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnServer, tempDir, type ChildServer } from '../../support/server.ts';
import { graphSource, makeRepository } from '../../control-plane/gitFixture.ts';
import { removeDeploymentUsers } from '../../control-plane/deploymentUsers.ts';
import { keyedApi, json, waitForRealRevision, type Api } from '../../control-plane/support.ts';

const KEY = `inputs-${randomUUID()}`;

/** A port nobody listens on: a clone from it fails at once. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe('local deployer inputs', () => {
  const data = tempDir('agentplane-inputs-');
  let controlPlane: ChildServer;
  let api: Api;

  before(async () => {
    controlPlane = await spawnServer(['--data', data], {
      AGENTPLANE_API_KEYS: `${KEY}:${randomUUID()}`,
      AGENTPLANE_DEPLOYER: 'local',
      AGENTPLANE_ACCESS_LOG: 'off',
    });
    api = keyedApi(KEY, () => controlPlane.url);
  });
  after(async () => {
    await controlPlane?.kill('SIGTERM');
    removeDeploymentUsers(`${data}-deployments`);
  });

  const deploy = (name: string, repoUrl: string, configPath = 'langgraph.json') =>
    api('/v2/deployments', {
      method: 'POST',
      json: { name, source: 'github', source_config: { repo_url: repoUrl }, source_revision_config: { repo_ref: 'main', graph_config_path: configPath } },
    });
  const buildLog = async (deploymentId: string, revisionId: string) =>
    (await json(await api(`/v2/deployments/${deploymentId}/revisions/${revisionId}/logs?type=build&limit=1000`), 200)).logs
      .map((l: { message: string }) => l.message)
      .join('\n');

  it(
    'refuses a repo_url starting with "-" (git would read it as an option) with 422, on create and on PATCH, and stores nothing',
    { timeout: 60_000 },
    async () => {
      const marker = path.join(tempDir(), 'ran');
      const res = await deploy('dash-url', `--upload-pack=touch ${marker}`);
      const body = await json(res, 422);
      assert.deepEqual(body.detail[0].loc, ['body', 'source_config', 'repo_url']);
      assert.equal(body.detail[0].type, 'string_pattern_mismatch');
      assert.equal((await json(await api('/v2/deployments?name_contains=dash-url'), 200)).resources.length, 0);

      const repo = makeRepository();
      repo.commit({ 'langgraph.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }), 'graph.mjs': graphSource('ok') }, 'fine');
      const created = await json(await deploy('dash-patch', repo.dir), 201);
      const patched = await json(
        await api(`/v2/deployments/${created.id}`, { method: 'PATCH', json: { source_config: { repo_url: '-oProxyCommand=x' } } }),
        422,
      );
      assert.deepEqual(patched.detail[0].loc, ['body', 'source_config', 'repo_url']);
      assert.ok(!fs.existsSync(marker), 'git ran nothing');
    },
  );

  it('masks credentials written into repo_url in every response, the build log, status_message and the server log', { timeout: 120_000 }, async () => {
    const token = `ghp_${randomUUID().replace(/-/g, '')}`;
    const port = await closedPort();
    const repoUrl = `https://x-access-token:${token}@127.0.0.1:${port}/acme/agent.git`;
    const masked = `https://x-access-token:********@127.0.0.1:${port}/acme/agent.git`;
    const created = await json(await deploy('credentials', repoUrl), 201);
    assert.equal(created.source_config.repo_url, masked);
    const revision = await waitForRealRevision(api, created.id, created.latest_revision_id, controlPlane.output);
    assert.equal(revision.status, 'BUILD_FAILED');

    const log = await buildLog(created.id, revision.id);
    assert.match(log, new RegExp(`Fetching ${masked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at main`));
    const seen = [
      JSON.stringify(await json(await api(`/v2/deployments/${created.id}`), 200)),
      JSON.stringify(await json(await api('/v2/deployments?name_contains=credentials'), 200)),
      JSON.stringify(revision),
      log,
      controlPlane.output(),
    ];
    for (const text of seen) assert.ok(!text.includes(token), `the token is shown: ${text.slice(0, 400)}`);

    // the masked URL sent back, as a client that PATCHes what it read does, is no change; another URL is
    const same = await json(await api(`/v2/deployments/${created.id}`, { method: 'PATCH', json: { source_config: { repo_url: masked } } }), 200);
    assert.equal(same.source_config.repo_url, masked);
    await json(await api(`/v2/deployments/${created.id}`, { method: 'PATCH', json: { source_config: { repo_url: 'https://github.com/acme/other' } } }), 400);
  });

  it('refuses a graph_config_path or a graph module that is a symbolic link out of the checkout', { timeout: 180_000 }, async () => {
    // a valid project outside the repository, which the links point at
    const outside = tempDir('agentplane-outside-');
    fs.chmodSync(outside, 0o755);
    fs.writeFileSync(path.join(outside, 'langgraph.json'), JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }));
    fs.writeFileSync(path.join(outside, 'graph.mjs'), graphSource('outside'));
    for (const file of fs.readdirSync(outside)) fs.chmodSync(path.join(outside, file), 0o644);

    const linkedConfig = makeRepository();
    linkedConfig.commit({ 'graph.mjs': graphSource('inside') }, 'project file is a link', { 'langgraph.json': path.join(outside, 'langgraph.json') });
    const a = await json(await deploy('linked-config', linkedConfig.dir), 201);
    const aRevision = await waitForRealRevision(api, a.id, a.latest_revision_id, controlPlane.output);
    assert.equal(aRevision.status, 'BUILD_FAILED', aRevision.status_message);
    assert.match(aRevision.status_message, /graph_config_path "langgraph.json" leads out of the repository/);

    const linkedGraph = makeRepository();
    linkedGraph.commit({ 'langgraph.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }) }, 'graph module is a link', {
      'graph.mjs': path.join(outside, 'graph.mjs'),
    });
    const b = await json(await deploy('linked-graph', linkedGraph.dir), 201);
    const bRevision = await waitForRealRevision(api, b.id, b.latest_revision_id, controlPlane.output);
    assert.equal(bRevision.status, 'BUILD_FAILED', bRevision.status_message);
    assert.match(bRevision.status_message, /graph "echo" of langgraph.json \("\.\/graph\.mjs"\) leads out of the repository/);

    // a link that stays inside the checkout is fine
    const linkedInside = makeRepository();
    linkedInside.commit({ 'real.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }), 'graph.mjs': graphSource('inside') }, 'link inside', {
      'langgraph.json': 'real.json',
    });
    const c = await json(await deploy('linked-inside', linkedInside.dir), 201);
    const cRevision = await waitForRealRevision(api, c.id, c.latest_revision_id, controlPlane.output);
    assert.equal(cRevision.status, 'DEPLOYED', cRevision.status_message);
    for (const id of [a.id, b.id, c.id]) assert.equal((await api(`/v2/deployments/${id}`, { method: 'DELETE' })).status, 204);
  });
});
