// The local deployer end to end: a git repository made here, a control plane run as a child
// process with AGENTPLANE_DEPLOYER=local, and the deployed agent server used through its
// custom_url with the official SDK and A2A — across a new revision, a failing build, a
// redeploy, a kill -9 of the control plane and a delete.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { spawnServer, tempDir, type ChildServer } from '../../support/server.ts';
import { graphSource, makeRepository } from '../../control-plane/gitFixture.ts';
import { removeDeploymentUsers } from '../../control-plane/deploymentUsers.ts';

const KEY = `local-deployer-${randomUUID()}`;
const TENANT = randomUUID();
// another tenant of the same control plane: its key is valid there, never on KEY's deployment
const OTHER_KEY = `local-deployer-other-${randomUUID()}`;

const portIsClosed = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { port } = new URL(url);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe('local deployer', () => {
  const repo = makeRepository();
  const data = tempDir('agentplane-local-deployer-');
  let controlPlane: ChildServer;
  let customUrl = '';
  // AGENTPLANE_DEPLOYMENT_AUTH unset: its default decides whether the deployed server asks for a key
  const env = {
    AGENTPLANE_API_KEYS: `${KEY}:${TENANT},${OTHER_KEY}:${randomUUID()}`,
    AGENTPLANE_DEPLOYER: 'local',
    AGENTPLANE_ACCESS_LOG: 'off',
  };
  const start = async () => (controlPlane = await spawnServer(['--data', data], env));
  const api = async (pathname: string, init: RequestInit & { json?: unknown; key?: string } = {}) => {
    const res = await fetch(controlPlane.url + pathname, {
      ...init,
      headers: { 'x-api-key': init.key ?? KEY, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const revisionSettles = async (deploymentId: string, revisionId: string) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { body } = await api(`/v2/deployments/${deploymentId}/revisions/${revisionId}`);
      if (/DEPLOYED|FAILED|SKIPPED|INTERRUPTED/.test(body.status)) return body;
      if (Date.now() > deadline) assert.fail(`revision ${revisionId} stuck in ${body.status}:\n${controlPlane.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const ask = async (client: Client, threadId: string, text: string) => {
    const state = (await client.runs.wait(threadId, 'echo', { input: { messages: [{ role: 'user', content: text }] } })) as { messages: { content: string }[] };
    return state.messages.at(-1)!.content;
  };

  after(async () => {
    await controlPlane?.kill('SIGTERM');
    removeDeploymentUsers(`${data}-deployments`);
    // nothing may outlive the test: a deployment left over would still hold its port
    if (customUrl && !(await portIsClosed(customUrl))) {
      const saved = fs
        .readdirSync(path.join(data, 'deployments'))
        .map((d) => path.join(data, 'deployments', d, 'process.json'))
        .filter((f) => fs.existsSync(f));
      for (const file of saved) {
        const { pid } = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number };
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  });

  it(
    'builds a git repository, serves it, replaces it, survives a failing build, a redeploy and a control-plane kill -9, and deletes it',
    { timeout: 300_000 },
    async () => {
      const base = {
        'package.json': JSON.stringify({ name: 'fixture-agent', private: true, type: 'module', scripts: { build: 'node build.mjs' } }),
        'build.mjs': "console.log('compiling the fixture agent'); console.log('build ok');\n",
        'langgraph.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }),
        'graph.mjs': graphSource('v1'),
      };
      const firstSha = repo.commit(base, 'first version');
      await start();

      // create: the real build and start happen, statuses as they go
      const created = await api('/v2/deployments', {
        method: 'POST',
        json: {
          name: 'fixture-agent',
          source: 'github',
          source_config: { repo_url: repo.dir, build_command: 'npm run build' },
          source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
          secrets: [{ name: 'GREETING', value: 'secret-greeting' }],
        },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const deploymentId: string = created.body.id;
      const first = await revisionSettles(deploymentId, created.body.latest_revision_id);
      assert.equal(first.status, 'DEPLOYED', first.status_message);
      assert.equal(first.source_revision_config.repo_commit_sha, firstSha);
      const deployment = (await api(`/v2/deployments/${deploymentId}`)).body;
      assert.equal(deployment.status, 'READY');
      assert.equal(deployment.active_revision_id, first.id);
      customUrl = deployment.source_config.custom_url;
      assert.match(customUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(customUrl, controlPlane.url);

      // the deployed agent server answers the key the deployment is managed with, and no other (issue 83):
      // none is 401, and so is another tenant's, valid on the control plane; the health check stays open
      const search = (headers: Record<string, string>) =>
        fetch(`${customUrl}/threads/search`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
      assert.equal((await search({})).status, 401);
      assert.equal((await search({ 'x-api-key': OTHER_KEY })).status, 401);
      assert.equal((await search({ authorization: `Bearer ${OTHER_KEY}` })).status, 401);
      assert.equal((await search({ 'x-api-key': KEY })).status, 200);
      assert.equal((await fetch(`${customUrl}/ok`)).status, 200);
      assert.equal((await api('/v2/deployments', { key: OTHER_KEY })).status, 200, "the other tenant's key is valid on the control plane");

      // the deployed agent server, through the official SDK: the secret reached it as a variable
      const client = new Client({ apiUrl: customUrl, apiKey: KEY });
      const thread = await client.threads.create();
      assert.equal(await ask(client, thread.thread_id, 'hello'), 'v1: hello / secret-greeting');
      // it is an agent server only: no control plane of its own
      assert.equal((await fetch(`${customUrl}/v2/deployments`, { headers: { 'x-api-key': KEY } })).status, 404);

      // A2A: the agent card and one message
      const [assistant] = await client.assistants.search({ graphId: 'echo' });
      const card = (await (await fetch(`${customUrl}/.well-known/agent-card.json?assistant_id=${assistant.assistant_id}`)).json()) as {
        url: string;
        name: string;
      };
      assert.equal(card.url, `${customUrl}/a2a/${assistant.assistant_id}`);
      const a2a = (await (
        await fetch(card.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': KEY },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'message/send',
            params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'over a2a' }] } },
          }),
        })
      ).json()) as { result: { status: { state: string; message?: { parts: { text: string }[] } }; artifacts?: { parts: { text: string }[] }[] } };
      assert.equal(a2a.result.status.state, 'completed', JSON.stringify(a2a));
      assert.match(JSON.stringify(a2a.result), /v1: over a2a/);

      // build and server logs through the API
      const buildLog = await api(`/v2/deployments/${deploymentId}/revisions/${first.id}/logs?type=build&limit=1000`);
      assert.equal(buildLog.status, 200);
      const buildText = buildLog.body.logs.map((l: { message: string }) => l.message).join('\n');
      assert.match(buildText, /Checked out [0-9a-f]{40}/);
      assert.match(buildText, /compiling the fixture agent/);
      assert.equal(buildLog.body.next_offset, null, 'a finished build log is complete');
      const serverLog = await api(`/v2/deployments/${deploymentId}/revisions/${first.id}/logs?type=deploy&limit=1000`);
      assert.equal(serverLog.status, 200);
      assert.ok(
        serverLog.body.logs.some((l: { message: string; level: string | null }) => /agentplane listening/.test(l.message) && l.level === 'INFO'),
        JSON.stringify(serverLog.body).slice(0, 500),
      );
      assert.ok(!JSON.stringify(serverLog.body).includes('secret-greeting'), 'secret values never reach the logs');
      // paging: one line at a time follows the cursor
      const page1 = await api(`/v2/deployments/${deploymentId}/revisions/${first.id}/logs?type=build&limit=1`);
      const page2 = await api(`/v2/deployments/${deploymentId}/revisions/${first.id}/logs?type=build&limit=1&offset=${page1.body.next_offset}`);
      assert.deepEqual([...page1.body.logs, ...page2.body.logs], buildLog.body.logs.slice(0, 2));

      // a new commit, deployed by PATCH: the reply changes, the thread is still there
      const secondSha = repo.commit({ 'graph.mjs': graphSource('v2') }, 'second version');
      const patched = await api(`/v2/deployments/${deploymentId}`, { method: 'PATCH', json: { source_revision_config: { repo_ref: secondSha } } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const second = await revisionSettles(deploymentId, patched.body.latest_revision_id);
      assert.equal(second.status, 'DEPLOYED', second.status_message);
      assert.equal(second.source_revision_config.repo_commit_sha, secondSha);
      assert.equal((await api(`/v2/deployments/${deploymentId}`)).body.source_config.custom_url, customUrl, 'the URL stays across revisions');
      assert.equal((await client.threads.get(thread.thread_id)).thread_id, thread.thread_id);
      assert.equal(await ask(client, thread.thread_id, 'again'), 'v2: again / secret-greeting');

      // a commit whose build fails: BUILD_FAILED with the output's tail, v2 keeps answering
      repo.git('checkout', '-q', '-b', 'broken');
      repo.commit({ 'build.mjs': "console.error('TypeError: the fixture cannot build'); process.exit(3);\n", 'graph.mjs': graphSource('v3') }, 'broken build');
      repo.git('checkout', '-q', 'main');
      const broken = await api(`/v2/deployments/${deploymentId}`, { method: 'PATCH', json: { source_revision_config: { repo_ref: 'broken' } } });
      const failed = await revisionSettles(deploymentId, broken.body.latest_revision_id);
      assert.equal(failed.status, 'BUILD_FAILED');
      assert.match(failed.status_message, /build "npm run build" exited with code 3/);
      assert.match(failed.status_message, /TypeError: the fixture cannot build/);
      assert.equal((await api(`/v2/deployments/${deploymentId}`)).body.active_revision_id, second.id);
      assert.equal(await ask(client, thread.thread_id, 'still'), 'v2: still / secret-greeting');

      // a commit that builds but whose graph cannot load: DEPLOY_FAILED, and v2 serves again
      repo.git('checkout', '-q', '-b', 'unloadable');
      repo.commit({ 'graph.mjs': "throw new Error('the graph module cannot load');\n" }, 'graph that throws at import');
      repo.git('checkout', '-q', 'main');
      const unloadable = await api(`/v2/deployments/${deploymentId}`, { method: 'PATCH', json: { source_revision_config: { repo_ref: 'unloadable' } } });
      const deployFailed = await revisionSettles(deploymentId, unloadable.body.latest_revision_id);
      assert.equal(deployFailed.status, 'DEPLOY_FAILED');
      assert.match(deployFailed.status_message, /echo|exited/);
      assert.equal((await api(`/v2/deployments/${deploymentId}`)).body.active_revision_id, second.id);
      assert.equal(await ask(client, thread.thread_id, 'rolled back'), 'v2: rolled back / secret-greeting');

      // the deployed process dies: it is restarted, and the restart is in its server log
      const processFile = path.join(data, 'deployments', deploymentId, 'process.json');
      const { pid } = JSON.parse(fs.readFileSync(processFile, 'utf8')) as { pid: number };
      process.kill(pid, 'SIGKILL');
      const restartDeadline = Date.now() + 30_000;
      for (;;) {
        const now = JSON.parse(fs.readFileSync(processFile, 'utf8')) as { pid: number };
        if (
          now.pid !== pid &&
          (await fetch(`${customUrl}/ok`).then(
            (r) => r.status,
            () => 0,
          )) === 200
        )
          break;
        if (Date.now() > restartDeadline) assert.fail('the deployed agent server was not restarted');
        await new Promise((r) => setTimeout(r, 100));
      }
      const afterCrash = await api(`/v2/deployments/${deploymentId}/revisions/${second.id}/logs?type=deploy&limit=1000&query=restarting`);
      assert.equal(afterCrash.body.logs.length, 1, JSON.stringify(afterCrash.body));
      assert.equal(await ask(client, thread.thread_id, 'revived'), 'v2: revived / secret-greeting');

      // redeploying the first revision brings its reply back, without a build
      const redeployed = await api(`/v2/deployments/${deploymentId}/revisions/${first.id}/redeploy`, { method: 'POST' });
      assert.equal(redeployed.status, 200, JSON.stringify(redeployed.body));
      const third = await revisionSettles(deploymentId, redeployed.body.latest_revision_id);
      assert.equal(third.status, 'DEPLOYED', third.status_message);
      assert.deepEqual((await api(`/v2/deployments/${deploymentId}/revisions/${third.id}/logs?type=build`)).body.logs, [], 'a redeploy has no build');
      assert.equal(await ask(client, thread.thread_id, 'back'), 'v1: back / secret-greeting');

      // kill -9 of the control plane: the deployment keeps answering and is adopted on restart
      await controlPlane.kill('SIGKILL');
      assert.equal(await ask(client, thread.thread_id, 'alone'), 'v1: alone / secret-greeting');
      await start();
      assert.equal((await api(`/v2/deployments/${deploymentId}`)).body.active_revision_id, third.id);
      assert.equal(await ask(client, thread.thread_id, 'adopted'), 'v1: adopted / secret-greeting');

      // delete: the process stops, the port closes, the deployment is gone
      assert.equal((await api(`/v2/deployments/${deploymentId}`, { method: 'DELETE' })).status, 204);
      const deadline = Date.now() + 30_000;
      while ((await api(`/v2/deployments/${deploymentId}`)).status !== 404) {
        if (Date.now() > deadline) assert.fail(`deployment not deleted:\n${controlPlane.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(await portIsClosed(customUrl), 'the deployed agent server is stopped');
      assert.ok(!fs.existsSync(path.join(data, 'deployments', deploymentId)), 'its logs are removed');
      assert.ok(!fs.existsSync(path.join(`${data}-deployments`, deploymentId)), 'its workspace (checkouts and data) is removed');
    },
  );
});
