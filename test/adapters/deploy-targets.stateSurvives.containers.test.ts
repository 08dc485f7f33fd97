// A deployment keeps its state on every deploy target that runs it here (issue 54): threads
// made through the deployed agent server's API, with their runs' state and a store item, are
// all still there after a PATCH (a new revision), a scale change 1 → 2 → 1 and a reschedule
// (the pod's containers gone and started again; on kube-local also the server killed and
// started again by the deployer), on the container target (its database from
// the first revision) and on kube-local (the PostgreSQL it renders and plays). What would move
// the data is refused at the API, each at its field.
// Run: CONTAINERS_CONF=$PWD/config/containers.conf node --import tsx --test test/adapters/deploy-targets.stateSurvives.containers.test.ts
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { buildImage } from '../../src/adapters/images/buildImage.ts';
import { ROOT, startTestServer, type TestServer } from '../support/server.ts';
import { json, until } from '../containers/support/replies.ts';
import { TEST_IMAGE_NAMESPACES, podmanAvailable, removeImage } from '../containers/support/nodeImage.ts';
import { sharedPostgresImage } from '../containers/support/postgresImage.ts';
import { echoProject, podman, postgresForContainers, testEngine, testTag } from '../containers/support.ts';

const skip = podmanAvailable() ? false : 'podman is not installed';
const image = testTag('state');
let postgresImage = '';
let database: Awaited<ReturnType<typeof postgresForContainers>> | null = null;
const servers: TestServer[] = [];
const made: { server: TestServer; id: string }[] = [];

before(async () => {
  if (skip) return;
  await buildImage(testEngine(), { tag: image, projectDir: echoProject('kept'), configPath: 'langgraph.json', packageRoot: ROOT });
  postgresImage = await sharedPostgresImage();
  database = await postgresForContainers();
});

after(async () => {
  for (const { server, id } of made) await server.api(`/v2/deployments/${id}`, { method: 'DELETE' }).catch(() => undefined);
  for (const { server, id } of made)
    await until('the deployment to be gone', async () => ((await server.api(`/v2/deployments/${id}`)).status === 404 ? true : undefined), 120_000);
  for (const server of servers) await server.close();
  await database?.stop();
  removeImage(image);
});

/** What a deployment keeps: threads, their state and runs, and a store item. */
interface Kept {
  threads: { id: string; values: unknown; runs: number }[];
  item: unknown;
}

async function makeState(client: Client): Promise<Kept> {
  const threads = [];
  for (const word of ['first', 'second']) {
    const thread = await client.threads.create({ metadata: { word } });
    await client.runs.wait(thread.thread_id, 'echo', { input: { messages: [{ role: 'user', content: word }] } });
    threads.push(thread.thread_id);
  }
  await client.store.putItem(['notes'], 'kept', { text: 'still here' });
  return readState(client, threads);
}

async function readState(client: Client, threadIds: string[]): Promise<Kept> {
  const threads = [];
  for (const id of threadIds) {
    const state = await client.threads.getState(id);
    threads.push({ id, values: state.values, runs: (await client.runs.list(id)).length });
  }
  return { threads, item: (await client.store.getItem(['notes'], 'kept'))?.value };
}

/** The control plane of one deploy target, and the deployment's steps through it. */
function steps(server: TestServer) {
  const revision = async (id: string, revisionId: string) => {
    const done = await until(`revision ${revisionId}`, async () => {
      const r = await json(server.api(`/v2/deployments/${id}/revisions/${revisionId}`));
      return ['DEPLOYED', 'DEPLOY_FAILED', 'BUILD_FAILED'].includes(r.status) ? r : undefined;
    });
    assert.equal(done.status, 'DEPLOYED', done.status_message);
  };
  const patch = async (id: string, body: unknown) => {
    const patched = await json(server.api(`/v2/deployments/${id}`, { method: 'PATCH', json: body }));
    await revision(id, patched.latest_revision_id);
  };
  const refused = async (id: string, body: unknown) => (await json(server.api(`/v2/deployments/${id}`, { method: 'PATCH', json: body }), 422)).detail;
  const create = async (body: Record<string, unknown>) => {
    const created = await json(
      server.api('/v2/deployments', { method: 'POST', json: { name: `state-${randomUUID().slice(0, 8)}`, source: 'external_docker', ...body } }),
      201,
    );
    made.push({ server, id: created.id });
    await revision(created.id, created.latest_revision_id);
    const url: string = (await json(server.api(`/v2/deployments/${created.id}`))).source_config.custom_url;
    // a request on a connection to a pod that is gone gets no answer at all: each has a time limit;
    // the deployed server answers the key the deployment is managed with
    return { id: created.id as string, client: new Client({ apiUrl: url, apiKey: server.key, timeoutMs: 30_000 }), url };
  };
  return { patch, refused, create };
}

/**
 * What podman knows of a kube-local deployment's pods when a step fails: each container's
 * state, restarts and address, and the last lines of its database and server. A CI run (stop
 * 81) saw its first write answered 503 "the database system is starting up" two seconds after
 * the revision was DEPLOYED, and its output held nothing else to say why.
 */
function kubeLocalState(id: string): string {
  const read = (...args: string[]) => {
    try {
      return podman(...args);
    } catch (error) {
      return `(podman ${args[0]}: ${(error as Error).message.split('\n')[0]})`;
    }
  };
  const containers = read('ps', '--all', '--filter', `name=agentplane-${id}`, '--format', '{{.Names}}').split('\n').filter(Boolean);
  const states = containers.map(
    (name) =>
      `${name}: ${read('inspect', name, '--format', 'state {{.State.Status}} exit {{.State.ExitCode}} oom {{.State.OOMKilled}} restarts {{.RestartCount}} started {{.State.StartedAt}} finished {{.State.FinishedAt}}')}`,
  );
  const tail = (name: string) => read('logs', '--timestamps', '--tail', '80', name);
  // who stopped, killed or restarted what: a CI run (stop 109) saw the restarted server exit 137
  // ten seconds after its start, its restart count 0, and nothing in either log said why
  const events = read('events', '--stream=false', '--since', '20m', '--filter', `container=agentplane-${id}-pod-0-server`, '--format', '{{.Time}} {{.Status}}')
    .split('\n')
    .slice(-40)
    .join('\n');
  return [
    ...states,
    `podman's events of the server:\n${events}`,
    `the database's last lines:\n${tail(`agentplane-${id}-db-pod-0-postgres`)}`,
    `the server's last lines:\n${tail(`agentplane-${id}-pod-0-server`)}`,
  ].join('\n');
}

/** `steps` with what podman knows of the deployment added to the failure of any. */
async function explained<T>(id: () => string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const known = id();
    if (known && error instanceof Error) error.message += `\n--- kube-local's pods of ${known} ---\n${kubeLocalState(known)}`;
    throw error;
  }
}

/** Until the deployment's URL answers /ok again. */
const answering = (url: string) =>
  until(`${url} to answer`, async () => ((await fetch(`${url}/ok`, { signal: AbortSignal.timeout(5000) }).catch(() => null))?.ok ? true : undefined), 120_000);

/** The state once it can be read again (the first requests after a reschedule may meet connections of the pod that went). */
const readAgain = (client: Client, threadIds: string[]) => until('the state to be read', () => readState(client, threadIds).catch(() => undefined), 120_000);

test('container target: threads, runs and store survive a new revision, 1 → 2 → 1 replicas and a rescheduled pod', { skip, timeout: 900_000 }, async () => {
  const server = await startTestServer({
    env: { AGENTPLANE_DEPLOYER: 'container', CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? '', AGENTPLANE_IMAGE_NAMESPACES: TEST_IMAGE_NAMESPACES },
  });
  servers.push(server);
  const { patch, refused, create } = steps(server);
  // several replicas without a shared database would each keep a store of their own: refused at create
  const detail = (
    await json(
      server.api('/v2/deployments', {
        method: 'POST',
        json: {
          name: 'state-refused',
          source: 'external_docker',
          source_config: { resource_spec: { min_scale: 2 } },
          source_revision_config: { image_uri: image },
        },
      }),
      422,
    )
  ).detail;
  assert.deepEqual(detail[0].loc, ['source_config', 'resource_spec', 'min_scale']);

  const secrets = [{ name: 'DATABASE_URL', value: database!.url }];
  const { id, client, url } = await create({ source_config: { resource_spec: { min_scale: 1 } }, source_revision_config: { image_uri: image }, secrets });
  const kept = await makeState(client);
  const ids = kept.threads.map((t) => t.id);
  assert.equal(kept.item && (kept.item as { text: string }).text, 'still here');

  await patch(id, { source_revision_config: { image_uri: image } });
  assert.deepEqual(await readState(client, ids), kept, 'after a new revision');
  await patch(id, { source_config: { resource_spec: { min_scale: 2 } } });
  assert.equal(podman('ps', '--filter', `label=agentplane.deployment=${id}`, '--filter', 'label=agentplane.role=replica', '--quiet').split('\n').length, 2);
  assert.deepEqual(await readState(client, ids), kept, 'with two replicas');
  await patch(id, { source_config: { resource_spec: { min_scale: 1 } } });
  assert.deepEqual(await readState(client, ids), kept, 'back to one replica');
  // dropping the database would leave the data behind: refused, naming the field
  assert.deepEqual((await refused(id, { secrets: [] }))[0].loc, ['secrets']);

  // rescheduled: the pod and its containers are removed; the deployer starts them again
  podman('pod', 'rm', '--force', `agentplane-${id}`);
  await until('the pod to be back', async () => (podman('pod', 'ps', '--filter', `name=agentplane-${id}`, '--quiet') ? true : undefined), 120_000);
  await answering(url);
  assert.deepEqual(await readAgain(client, ids), kept, 'after the pod was rescheduled');
});

test(
  "kube-local: threads, runs and store live in the deployment's played PostgreSQL through a new revision, a scale change and a restarted pod",
  { skip, timeout: 900_000 },
  async () => {
    const server = await startTestServer({
      env: {
        AGENTPLANE_DEPLOYER: 'kube-local',
        AGENTPLANE_KUBE_POSTGRES_IMAGE: postgresImage,
        AGENTPLANE_DEPLOY_TIMEOUT_S: '180',
        AGENTPLANE_IMAGE_NAMESPACES: TEST_IMAGE_NAMESPACES,
      },
    });
    servers.push(server);
    const { patch, refused, create } = steps(server);
    // the deployment made by this test, once there is one
    const deployment = () => made.find((m) => m.server === server)?.id;
    await explained(deployment, async () => {
      const { id, client, url } = await create({
        source_config: { resource_spec: { min_scale: 1, memory_mb: 256 } },
        source_revision_config: { image_uri: image },
      });
      const kept = await makeState(client);
      const ids = kept.threads.map((t) => t.id);
      // the data is in the deployment's own PostgreSQL pod, not in the server's container
      assert.equal(podman('inspect', `agentplane-${id}-db-pod-0-postgres`, '--format', '{{.State.Status}}'), 'running');

      await patch(id, { source_revision_config: { image_uri: image } });
      assert.deepEqual(await readState(client, ids), kept, 'after a new revision');
      // several pods would each publish the one host port: refused at the API with the reason, not 120 s later
      const tooMany = await refused(id, { source_config: { resource_spec: { min_scale: 2 } } });
      assert.deepEqual(tooMany[0].loc, ['source_config', 'resource_spec', 'min_scale']);
      assert.match(tooMany[0].msg, /one pod per workload/);
      // an autoscaler up to 2 (played at its minimum), then back to 1: the same database throughout
      await patch(id, { source_config: { resource_spec: { min_scale: 1, max_scale: 2, memory_mb: 256 } } });
      assert.deepEqual(await readState(client, ids), kept, 'scaled to 2');
      await patch(id, { source_config: { resource_spec: { min_scale: 1, max_scale: 1, memory_mb: 256 } } });
      assert.deepEqual(await readState(client, ids), kept, 'scaled back to 1');

      // the server's container restarted in its pod, as a kubelet restarts a container: new
      // processes, the same database, given Kubernetes' default 30 s to stop. `kube play`'s exit
      // policy "stop" lets podman's cleanup stop the pod around the restart, at a time of its own
      // (stop 110: the start refused, "cannot get namespace path"; stop 133: the restarted server
      // stopped 0.35 s after its start): the deployer then starts the pod again, as it does any
      // pod of it that stopped (playedPodRestarts.ts)
      try {
        podman('restart', '--time', '30', `agentplane-${id}-pod-0-server`);
      } catch (error) {
        if (!/namespace path/.test((error as Error).message)) throw error;
      }
      await answering(url);
      assert.deepEqual(await readAgain(client, ids), kept, 'after the pod restarted');

      // the server killed (as an out-of-memory kill under its memory limit would): podman leaves
      // a played pod stopped, so the deployer starts it again, as a kubelet would (before it did,
      // 5 of 5 killed servers stayed down: playedPodRestarts.ts)
      podman('kill', '--signal', 'KILL', `agentplane-${id}-pod-0-server`);
      await answering(url);
      assert.deepEqual(await readAgain(client, ids), kept, 'after the server was killed');
    });
  },
);
