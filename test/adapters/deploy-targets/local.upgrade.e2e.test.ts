// A data directory from before the deployments' workspaces moved out of it: a deployment's
// checkouts and its agent server's data under <data>/deployments/<id>/, owned by the control
// plane's user. After the upgrade the deployment serves again from its workspace, as its own
// user, with its threads.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { spawnServer, tempDir, type ChildServer } from '../../support/server.ts';
import { deploymentUserName } from '../../../src/adapters/deploy-targets/shared/sandbox.ts';
import { removeDeploymentUsers } from '../../control-plane/deploymentUsers.ts';
import { graphSource, makeRepository } from '../../control-plane/gitFixture.ts';
import { keyedApi, json, waitForRealRevision } from '../../control-plane/support.ts';

const isRoot = process.getuid?.() === 0;

describe('local deployer upgrade', { skip: !isRoot && 'the move to a user of its own needs root' }, () => {
  const data = tempDir('agentplane-upgrade-');
  const workspaces = `${data}-deployments`;
  const key = `upgrade-${randomUUID()}`;
  // the same tenant across starts: the deployment's server answers its tenant's keys
  const tenant = randomUUID();
  let controlPlane: ChildServer;
  const start = async () =>
    (controlPlane = await spawnServer(['--data', data], {
      AGENTPLANE_API_KEYS: `${key}:${tenant}`,
      AGENTPLANE_DEPLOYER: 'local',
      AGENTPLANE_ACCESS_LOG: 'off',
    }));
  const api = keyedApi(key, () => controlPlane.url);

  after(async () => {
    await controlPlane?.kill('SIGTERM');
    removeDeploymentUsers(workspaces);
  });

  it("moves a deployment's checkouts and data from the data directory into its workspace, and it serves its threads again", { timeout: 240_000 }, async () => {
    await start();
    const repo = makeRepository();
    repo.commit({ 'langgraph.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }), 'graph.mjs': graphSource('kept') }, 'agent');
    const created = await json(
      await api('/v2/deployments', {
        method: 'POST',
        json: {
          name: 'upgraded',
          source: 'github',
          source_config: { repo_url: repo.dir },
          source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
        },
      }),
      201,
    );
    const revision = await waitForRealRevision(api, created.id, created.latest_revision_id, controlPlane.output);
    assert.equal(revision.status, 'DEPLOYED', revision.status_message);
    const customUrl = (await json(await api(`/v2/deployments/${created.id}`), 200)).source_config.custom_url;
    // the deployed server answers the key the deployment is managed with
    const thread = await new Client({ apiUrl: customUrl, apiKey: key }).threads.create();

    // a clean stop takes the deployment down; then the files are put back where they used to be
    await controlPlane.kill('SIGTERM');
    const old = path.join(data, 'deployments', created.id);
    const workspace = path.join(workspaces, created.id);
    for (const name of ['checkouts', 'data']) {
      fs.renameSync(path.join(workspace, name), path.join(old, name));
      fs.chownSync(path.join(old, name), 0, 0);
    }
    fs.rmSync(workspace, { recursive: true, force: true });

    await start();
    const deadline = Date.now() + 120_000;
    while (
      (await fetch(`${customUrl}/ok`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    ) {
      if (Date.now() > deadline) assert.fail(`the upgraded deployment does not serve:\n${controlPlane.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal((await new Client({ apiUrl: customUrl, apiKey: key }).threads.get(thread.thread_id)).thread_id, thread.thread_id, 'its threads are kept');
    for (const name of ['checkouts', 'data']) {
      assert.ok(!fs.existsSync(path.join(old, name)), `${name} left the data directory`);
      assert.notEqual(fs.statSync(path.join(workspace, name)).uid, 0, `${name} belongs to the deployment's user`);
    }
    assert.match(fs.readFileSync('/etc/passwd', 'utf8'), new RegExp(`^${deploymentUserName(created.id)}:`, 'm'));
  });
});
