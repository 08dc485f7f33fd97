// The container deployer end to end on this machine's podman: images built here (no
// registry), a control plane run as a child process with AGENTPLANE_DEPLOYER=container, and
// an external_docker deployment with two replicas and a memory limit used through its
// custom_url with the official SDK and A2A — across a control-plane kill -9, a PATCH to a new
// image and a delete that leaves nothing behind in the container engine.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { buildImage } from '../../../src/adapters/images/buildImage.ts';
import { spawnServer, tempDir, ROOT, type ChildServer } from '../../support/server.ts';
import { create, json, keyedApi, waitForRealRevision, waitUntilGone } from '../../control-plane/support.ts';
import { graphSource, makeRepository } from '../../control-plane/gitFixture.ts';
import { removeDeploymentUsers } from '../../control-plane/deploymentUsers.ts';
import { CONTAINERS_CONF, echoProject, eventually, podman, postgresForContainers, removeImages, testEngine, testTag } from '../../containers/support.ts';
import { TEST_IMAGE_NAMESPACES } from '../../containers/support/nodeImage.ts';

const KEY = `container-deployer-${randomUUID()}`;
const TENANT = randomUUID();
const MEMORY_LIMIT_MB = 512;

interface PsEntry {
  Id: string;
  Names: string[];
  State: string;
  Labels: Record<string, string> | null;
}

const containersOf = (deploymentId: string): PsEntry[] =>
  JSON.parse(podman('ps', '--all', '--filter', `label=agentplane.deployment=${deploymentId}`, '--format', 'json') || '[]') as PsEntry[];

describe('container deployer', () => {
  const v1 = testTag('deploy-v1');
  const v2 = testTag('deploy-v2');
  const broken = testTag('deploy-broken');
  const data = tempDir('agentplane-container-deployer-');
  let controlPlane: ChildServer;
  let database: Awaited<ReturnType<typeof postgresForContainers>> | null = null;
  let deploymentId = '';
  /** Every deployment a test made, for the clean-up when one fails half-way. */
  const made = new Set<string>();
  const api = keyedApi(KEY, () => controlPlane.url);
  const start = async () =>
    (controlPlane = await spawnServer(['--data', data], {
      AGENTPLANE_API_KEYS: `${KEY}:${TENANT}`,
      AGENTPLANE_DEPLOYER: 'container',
      AGENTPLANE_ACCESS_LOG: 'off',
      AGENTPLANE_IMAGE_NAMESPACES: TEST_IMAGE_NAMESPACES,
      CONTAINERS_CONF,
    }));
  const deleteAndCheckGone = async (id: string) => {
    assert.equal((await api(`/v2/deployments/${id}`, { method: 'DELETE' })).status, 204);
    await waitUntilGone(api, id);
    assert.deepEqual(containersOf(id), []);
    assert.equal(podman('pod', 'ps', '--filter', `name=agentplane-${id}`, '--quiet'), '');
    assert.equal(podman('volume', 'ls', '--filter', `name=agentplane-${id}`, '--quiet'), '');
    // listed as the deployer lists them: a listing fails whole when another test's image is
    // removed while podman reads it, and is asked again then (ContainerEngine.listImages)
    assert.deepEqual(await testEngine().listImages([`reference=localhost/agentplane-deployment-${id}`]), []);
    // the cached layers of its builds, a failed one's included
    assert.deepEqual(await testEngine().listImages([`label=agentplane.deployment=${id}`], { all: true }), []);
  };
  const ask = async (client: Client, threadId: string, text: string) => {
    const state = (await client.runs.wait(threadId, 'echo', { input: { messages: [{ role: 'user', content: text }] } })) as { messages: { content: string }[] };
    return state.messages.at(-1)!.content;
  };

  before(async () => {
    const engine = testEngine();
    for (const [tag, reply] of [
      [v1, 'v1'],
      [v2, 'v2'],
    ])
      await buildImage(engine, { tag: tag!, projectDir: echoProject(reply!), configPath: 'langgraph.json', packageRoot: ROOT });
    // a project whose second graph cannot load: the agent server exits
    const brokenProject = echoProject('broken');
    fs.writeFileSync(path.join(brokenProject, 'langgraph.json'), JSON.stringify({ graphs: { echo: './graph.mjs:echo', missing: './nowhere.mjs:graph' } }));
    await buildImage(engine, { tag: broken, projectDir: brokenProject, configPath: 'langgraph.json', packageRoot: ROOT });
    database = await postgresForContainers();
  });

  after(async () => {
    await controlPlane?.kill('SIGTERM');
    // nothing may outlive the test, whatever failed
    for (const id of made) {
      podman('pod', 'rm', '--force', '--ignore', `agentplane-${id}`);
      podman('volume', 'rm', '--force', `agentplane-${id}-data`);
      removeImages(...(await testEngine().listImages([`label=agentplane.deployment=${id}`], { all: true })));
      removeImages(...(await testEngine().listImages([`reference=localhost/agentplane-deployment-${id}`])));
    }
    removeImages(v1, v2, broken);
    removeDeploymentUsers(`${data}-deployments`);
    await database?.stop();
  });

  it(
    'runs an external_docker image with two replicas and a memory limit, survives a kill -9, rolls out a new image and deletes everything',
    { timeout: 600_000 },
    async () => {
      await start();
      const created = await create(api, {
        name: 'container-agent',
        source: 'external_docker',
        source_config: { resource_spec: { min_scale: 2, memory_limit_mb: MEMORY_LIMIT_MB, cpu: 0.5 } },
        source_revision_config: { image_uri: v1 },
        secrets: [
          { name: 'GREETING', value: 'secret-greeting' },
          { name: 'DATABASE_URL', value: database!.url },
        ],
      });
      deploymentId = created.id;
      made.add(deploymentId);
      const first = await waitForRealRevision(api, deploymentId, created.latest_revision_id, controlPlane.output);
      assert.equal(first.status, 'DEPLOYED', first.status_message);
      const deployment = await json(await api(`/v2/deployments/${deploymentId}`), 200);
      assert.equal(deployment.status, 'READY');
      const customUrl: string = deployment.source_config.custom_url;
      assert.match(customUrl, /^http:\/\/127\.0\.0\.1:\d+$/);

      // two replicas, each with the memory limit, in the runtime
      const replicas = containersOf(deploymentId).filter((c) => c.Labels?.['agentplane.role'] === 'replica');
      assert.equal(replicas.length, 2);
      for (const replica of replicas) {
        assert.equal(replica.State, 'running');
        assert.equal(replica.Labels?.['agentplane.revision'], first.id);
        assert.equal(Number(podman('inspect', '--format', '{{.HostConfig.Memory}}', replica.Id)), MEMORY_LIMIT_MB * 1024 * 1024);
        assert.equal(Number(podman('inspect', '--format', '{{.HostConfig.NanoCpus}}', replica.Id)), 1e9);
      }

      // the SDK through custom_url, with the key the deployment is managed with (no other is answered there):
      // the thread lives in the shared database, so both replicas serve it
      assert.equal(
        (await fetch(`${customUrl}/threads/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status,
        401,
        'a deployed server asks for a key',
      );
      const client = new Client({ apiUrl: customUrl, apiKey: KEY });
      const thread = await client.threads.create();
      for (const word of ['one', 'two', 'three']) assert.equal(await ask(client, thread.thread_id, word), `v1: ${word} / secret-greeting`);

      // A2A: one message
      const [assistant] = await client.assistants.search({ graphId: 'echo' });
      const a2a = (await (
        await fetch(`${customUrl}/a2a/${assistant!.assistant_id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': KEY },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'message/send',
            params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'over a2a' }] } },
          }),
        })
      ).json()) as { result: { status: { state: string } } };
      assert.equal(a2a.result.status.state, 'completed', JSON.stringify(a2a));
      assert.match(JSON.stringify(a2a.result), /v1: over a2a/);

      // the replicas' output through the log operation
      const serverLog = await eventually('the server log', async () => {
        const page = await json(await api(`/v2/deployments/${deploymentId}/revisions/${first.id}/logs?type=deploy&limit=1000`), 200);
        const text = page.logs.map((l: { message: string }) => l.message).join('\n');
        return /agentplane listening/.test(text) && text;
      });
      assert.doesNotMatch(serverLog, /secret-greeting/);

      // kill -9 of the control plane: the deployment keeps serving, and is adopted (same containers) on restart
      const before = containersOf(deploymentId)
        .map((c) => c.Id)
        .sort();
      await controlPlane.kill('SIGKILL');
      assert.equal(await ask(client, thread.thread_id, 'alone'), 'v1: alone / secret-greeting');
      await start();
      await eventually('re-adoption', async () => /deployment re-adopted/.test(controlPlane.output()));
      assert.deepEqual(
        containersOf(deploymentId)
          .map((c) => c.Id)
          .sort(),
        before,
      );

      // an image whose graph does not load: DEPLOY_FAILED with the server's last lines, and the active revision's pod is started again
      const failing = await json(
        await api(`/v2/deployments/${deploymentId}`, { method: 'PATCH', json: { source_revision_config: { image_uri: broken } } }),
        200,
      );
      const failed = await waitForRealRevision(api, deploymentId, failing.latest_revision_id, controlPlane.output);
      assert.equal(failed.status, 'DEPLOY_FAILED');
      assert.match(failed.status_message, /exited before it answered \/ok\.\n[\s\S]*graph "missing": cannot import/);
      assert.equal((await json(await api(`/v2/deployments/${deploymentId}`), 200)).active_revision_id, first.id);
      assert.equal(await ask(client, thread.thread_id, 'back'), 'v1: back / secret-greeting');

      // PATCH to a new image: a new revision rolls out on the same URL, the thread is still there
      const patched = await json(await api(`/v2/deployments/${deploymentId}`, { method: 'PATCH', json: { source_revision_config: { image_uri: v2 } } }), 200);
      assert.notEqual(patched.latest_revision_id, first.id);
      const second = await waitForRealRevision(api, deploymentId, patched.latest_revision_id, controlPlane.output);
      assert.equal(second.status, 'DEPLOYED', second.status_message);
      assert.equal((await json(await api(`/v2/deployments/${deploymentId}`), 200)).source_config.custom_url, customUrl);
      assert.equal(await ask(client, thread.thread_id, 'after'), 'v2: after / secret-greeting');
      const rolled = containersOf(deploymentId).filter((c) => c.Labels?.['agentplane.role'] === 'replica');
      assert.deepEqual(
        rolled.map((c) => c.Labels?.['agentplane.revision']),
        [second.id, second.id],
      );

      // delete: no container, pod or volume of it is left
      await deleteAndCheckGone(deploymentId);
    },
  );

  it(
    'builds a github revision into an image (its commands inside the build), keeps its data on a volume across revisions, restarts an exited replica',
    { timeout: 600_000 },
    async () => {
      controlPlane ??= await start();
      const repo = makeRepository();
      const files = (reply: string) => ({
        'graph.mjs': `import { suffix } from './built.mjs';\n${graphSource(reply).replace("'no secret') }", "'no secret') + suffix }")}`,
        'langgraph.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }),
        // run by the image build: the file exists only inside the image
        'build.mjs': "import fs from 'node:fs'; fs.writeFileSync('built.mjs', `export const suffix = ' (built as uid ${process.getuid()})';`);\n",
      });
      repo.commit(files('g1'), 'first');
      const created = await create(api, {
        name: 'container-github-agent',
        source: 'github',
        source_config: { repo_url: repo.dir, build_command: 'node build.mjs' },
        source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
        secrets: [{ name: 'GREETING', value: 'hello-secret' }],
      });
      deploymentId = created.id;
      made.add(deploymentId);
      const first = await waitForRealRevision(api, deploymentId, created.latest_revision_id, controlPlane.output);
      assert.equal(first.status, 'DEPLOYED', first.status_message);
      const customUrl: string = (await json(await api(`/v2/deployments/${deploymentId}`), 200)).source_config.custom_url;
      const client = new Client({ apiUrl: customUrl, apiKey: KEY });
      const thread = await client.threads.create();
      assert.equal(await ask(client, thread.thread_id, 'hi'), 'g1: hi / hello-secret (built as uid 0)');
      const buildLog = (await json(await api(`/v2/deployments/${deploymentId}/revisions/${first.id}/logs?type=build&limit=1000`), 200)).logs
        .map((l: { message: string }) => l.message)
        .join('\n');
      assert.match(buildLog, /RUN unset NODE_ENV; node build\.mjs/);
      assert.match(buildLog, /Build finished/);

      // an exited replica is started again by the deployer
      const [replica] = containersOf(deploymentId).filter((c) => c.Labels?.['agentplane.role'] === 'replica');
      podman('kill', replica!.Id);
      await eventually('the replica restarted', async () => containersOf(deploymentId).find((c) => c.Id === replica!.Id)?.State === 'running');
      await eventually('the deployment answering again', async () => (await fetch(`${customUrl}/ok`)).ok);

      // a new commit: a new image; the thread is on the deployment's volume and outlives the revision (a run on a thread the server lacks is a 404)
      repo.commit(files('g2'), 'second');
      const patched = await json(
        await api(`/v2/deployments/${deploymentId}`, { method: 'PATCH', json: { source_revision_config: { repo_ref: 'main' } } }),
        200,
      );
      const second = await waitForRealRevision(api, deploymentId, patched.latest_revision_id, controlPlane.output);
      assert.equal(second.status, 'DEPLOYED', second.status_message);
      assert.equal(await ask(client, thread.thread_id, 'again'), 'g2: again / hello-secret (built as uid 0)');

      // two replicas need a shared store, and this deployment's data is on its volume: refused at the API, the running revision keeps serving
      const unscaled = await json(
        await api(`/v2/deployments/${deploymentId}`, { method: 'PATCH', json: { source_config: { resource_spec: { min_scale: 2 } } } }),
        422,
      );
      assert.deepEqual(unscaled.detail[0].loc, ['source_config', 'resource_spec', 'min_scale']);
      assert.match(unscaled.detail[0].msg, /min_scale 2 .*DATABASE_URL/);
      assert.equal(await ask(client, thread.thread_id, 'one'), 'g2: one / hello-secret (built as uid 0)');

      // a failing build leaves the running revision serving
      repo.commit({ 'build.mjs': 'process.exit(3);\n' }, 'broken');
      const broken = await json(await api(`/v2/deployments/${deploymentId}`, { method: 'PATCH', json: { source_revision_config: { repo_ref: 'main' } } }), 200);
      const failed = await waitForRealRevision(api, deploymentId, broken.latest_revision_id, controlPlane.output);
      assert.equal(failed.status, 'BUILD_FAILED');
      assert.match(failed.status_message, /node build\.mjs/);
      assert.equal(await ask(client, thread.thread_id, 'still'), 'g2: still / hello-secret (built as uid 0)');

      await deleteAndCheckGone(deploymentId);
    },
  );

  it(
    "clones as the deployment's own user: a repository only the control plane can read is not built",
    { skip: process.getuid?.() === 0 ? false : 'needs root (a user per deployment)', timeout: 300_000 },
    async () => {
      controlPlane ??= await start();
      const repo = makeRepository();
      repo.commit({ 'langgraph.json': JSON.stringify({ graphs: {} }) }, 'private');
      fs.chmodSync(repo.dir, 0o700);
      const created = await create(api, {
        name: 'container-private-repo',
        source: 'github',
        source_config: { repo_url: repo.dir },
        source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
      });
      made.add(created.id);
      const revision = await waitForRealRevision(api, created.id, created.latest_revision_id, controlPlane.output);
      assert.equal(revision.status, 'BUILD_FAILED');
      assert.match(revision.status_message, /git clone/);
      await deleteAndCheckGone(created.id);
    },
  );
});
