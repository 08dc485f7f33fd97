// Two tenants on the local deployer, the second hostile: its build command tries to read the
// control plane's data directory, the first tenant's checkout and the environment of the
// first tenant's agent server, and prints whatever it gets. Each attempt is refused, and no
// secret of the first tenant reaches anything the second can read, nor the server's log.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawnServer, tempDir, type ChildServer } from '../../support/server.ts';
import { graphSource, makeRepository } from '../../control-plane/gitFixture.ts';
import { removeDeploymentUsers } from '../../control-plane/deploymentUsers.ts';
import { deploymentUserName } from '../../../src/adapters/deploy-targets/shared/sandbox.ts';
import { keyedApi, json, waitForRealRevision, type Api } from '../../control-plane/support.ts';

const isRoot = process.getuid?.() === 0;

describe('local deployer: one tenant cannot reach another', { skip: !isRoot && 'user isolation needs the control plane to run as root' }, () => {
  const data = tempDir('agentplane-isolation-');
  const keyA = `tenant-a-${randomUUID()}`;
  const keyB = `tenant-b-${randomUUID()}`;
  const secretA = `tenant-a-secret-${randomUUID()}`;
  const secretB = `tenant-b-secret-${randomUUID()}`;
  let controlPlane: ChildServer;
  let apiA: Api;
  let apiB: Api;

  after(async () => {
    // a clean stop takes the deployed agent server down with it
    await controlPlane?.kill('SIGTERM');
    removeDeploymentUsers(`${data}-deployments`);
  });

  /** A github deployment of a fresh repository holding an echo graph. */
  const deployAgent = async (api: Api, name: string, config: Record<string, string>, secret: { name: string; value: string }) => {
    const repo = makeRepository();
    repo.commit({ 'langgraph.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }), 'graph.mjs': graphSource(name) }, name);
    const body = {
      name,
      source: 'github',
      source_config: { repo_url: repo.dir, ...config },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
      secrets: [secret],
    };
    return json(await api('/v2/deployments', { method: 'POST', json: body }), 201);
  };
  const logText = async (api: Api, deploymentId: string, revisionId: string, type: 'build' | 'deploy') =>
    JSON.stringify(await json(await api(`/v2/deployments/${deploymentId}/revisions/${revisionId}/logs?type=${type}&limit=1000`), 200));

  it(
    "refuses tenant B's build every read of the data directory, A's checkout and A's process environment, and shows A's secret nowhere",
    { timeout: 300_000 },
    async () => {
      controlPlane = await spawnServer(['--data', data], {
        AGENTPLANE_API_KEYS: `${keyA}:${randomUUID()},${keyB}:${randomUUID()}`,
        AGENTPLANE_DEPLOYER: 'local',
        AGENTPLANE_ACCESS_LOG: 'off',
      });
      apiA = keyedApi(keyA, () => controlPlane.url);
      apiB = keyedApi(keyB, () => controlPlane.url);

      // tenant A: an agent with a secret, deployed and serving
      const a = await deployAgent(apiA, 'tenant-a', {}, { name: 'GREETING', value: secretA });
      const aRevision = await waitForRealRevision(apiA, a.id, a.latest_revision_id, controlPlane.output);
      assert.equal(aRevision.status, 'DEPLOYED', aRevision.status_message);
      const { pid: pidA } = JSON.parse(fs.readFileSync(path.join(data, 'deployments', a.id, 'process.json'), 'utf8')) as { pid: number };
      assert.ok(fs.readFileSync(`/proc/${pidA}/environ`, 'utf8').includes(secretA), "A's agent server has its secret (read here as root)");
      const checkoutA = path.join(`${data}-deployments`, a.id, 'checkouts', a.latest_revision_id);
      assert.ok(fs.existsSync(path.join(checkoutA, 'graph.mjs')), "A's checkout is where B will look for it");

      // tenant B: a build that tries each read, says what it got, and fails to get its output shown
      const targets = {
        'data directory listing': `ls -la ${data}`,
        'data directory journal': `cat ${data}/journal/*`,
        'data directory search': `grep -r ${secretA.slice(0, 12)} ${data}`,
        "A's workspace listing": `ls -la ${path.dirname(path.dirname(checkoutA))}`,
        "A's checkout": `cat ${checkoutA}/graph.mjs`,
        "A's server environment": `tr '\\0' '\\n' < /proc/${pidA}/environ`,
        "A's server log": `cat ${data}/deployments/${a.id}/logs/*`,
      };
      // the markers are split in the command, so that its echo in the build log ("Building: …") is not taken for them
      const attempts = Object.entries(targets).map(([what, command]) => `if ${command}; then echo "REA""D: ${what}"; else echo "REFUSE""D: ${what}"; fi`);
      const buildCommand = [
        ...attempts,
        'echo "B sees its ""own: $B_SECRET"',
        'echo "running as ""uid $(id -u)"',
        'grep -E "^Max (processes|open files)" /proc/self/limits',
        'env',
        'exit 7',
      ].join('\n');
      const b = await deployAgent(apiB, 'tenant-b', { build_command: buildCommand }, { name: 'B_SECRET', value: secretB });
      const bRevision = await waitForRealRevision(apiB, b.id, b.latest_revision_id, controlPlane.output);
      assert.equal(bRevision.status, 'BUILD_FAILED', bRevision.status_message);
      assert.match(bRevision.status_message, /exited with code 7/);

      const buildLog = await logText(apiB, b.id, b.latest_revision_id, 'build');
      for (const what of Object.keys(targets)) {
        assert.ok(buildLog.includes(`REFUSED: ${what}`), `B's build could read ${what}:\n${buildLog}`);
        assert.ok(!buildLog.includes(`READ: ${what}`), `B's build read ${what}`);
      }
      // a user of its own (not root, not A's), under limits
      const uid = Number(/running as uid (\d+)/.exec(buildLog)?.[1]);
      assert.ok(uid > 0 && uid !== fs.statSync(checkoutA).uid, `B's build ran as uid ${uid}`);
      assert.match(buildLog, /Max processes +4096 +4096/);
      assert.match(buildLog, /Max open files +8192 +8192/);
      // its environment is its own: no variable of the control plane (its API keys) came with it
      assert.match(buildLog, /HOME=/);
      assert.ok(
        !buildLog.includes(keyA) && !buildLog.includes(keyB) && !buildLog.includes('AGENTPLANE_API_KEYS'),
        `the control plane's environment reached B's build:\n${buildLog}`,
      );
      // B's own secret is in its environment, and masked in what is shown
      assert.match(buildLog, /B sees its own: \*{8}/);

      // nothing B can read, nor the control plane's log, holds A's secret (nor B's own)
      const readableByB = [
        JSON.stringify(bRevision),
        buildLog,
        await logText(apiB, b.id, b.latest_revision_id, 'deploy'),
        JSON.stringify(await json(await apiB(`/v2/deployments/${b.id}`), 200)),
        JSON.stringify(await json(await apiB('/v2/deployments'), 200)),
        JSON.stringify(await json(await apiB(`/v2/deployments/${b.id}/revisions`), 200)),
        String((await apiB(`/v2/deployments/${a.id}`)).status),
      ];
      for (const text of readableByB) assert.ok(!text.includes(secretA), `A's secret reached tenant B: ${text.slice(0, 500)}`);
      assert.equal(readableByB.at(-1), '404', "A's deployment is not B's to see");
      const serverLog = controlPlane.output();
      assert.ok(!serverLog.includes(secretA), "A's secret is in the control plane's log");
      assert.ok(!serverLog.includes(secretB), "B's secret is in the control plane's log");
      // A still serves, untouched
      assert.equal((await fetch(`${(await json(await apiA(`/v2/deployments/${a.id}`), 200)).source_config.custom_url}/ok`)).status, 200);

      // deleting a deployment removes its user and its workspace
      for (const [api, id] of [
        [apiA, a.id],
        [apiB, b.id],
      ] as const) {
        assert.equal((await api(`/v2/deployments/${id}`, { method: 'DELETE' })).status, 204);
        const deadline = Date.now() + 60_000;
        while ((await api(`/v2/deployments/${id}`)).status !== 404) {
          if (Date.now() > deadline) assert.fail(`deployment ${id} not deleted:\n${controlPlane.output()}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(!fs.readFileSync('/etc/passwd', 'utf8').includes(`${deploymentUserName(id)}:`), `the user of ${id} is removed`);
        assert.ok(!fs.existsSync(path.join(`${data}-deployments`, id)), `the workspace of ${id} is removed`);
      }
    },
  );
});
