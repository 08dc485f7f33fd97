// The simulated deployer on its own: the order of phases, the one-at-a-time queue and
// resuming after a stop, recorded from the store's writes (no timing involved).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import type { WriteOp } from '../../../../src/domain/ports/store.ts';
import { createLogger } from '../../../../src/runtime/logging/logger.ts';
import type { ControlPlaneRepository } from '../../../../src/domain/control-plane/records.ts';
import { COLLECTIONS, CollectionControlPlane } from '../../../../src/adapters/embedded/collectionControlPlane.ts';
import { simulatedTarget } from '../../../../src/adapters/deploy-targets/simulated/simulatedTarget.ts';
import { RevisionEngine } from '../../../../src/domain/control-plane/revisionEngine.ts';
import * as deployments from '../../../../src/domain/control-plane/deployments.ts';
import * as patching from '../../../../src/domain/control-plane/patchDeployment.ts';
import { isFinished } from '../../../../src/domain/control-plane/revisionStateMachine.ts';
import type { Outcome } from '../../../../src/domain/outcome.ts';

/** The revision engine over the simulated target, as the control plane makes it (phases of 0 ms). */
const simulatedEngine = (repo: ControlPlaneRepository, retryMs = 200) =>
  new RevisionEngine(repo, simulatedTarget, createLogger('silent'), { retryMs, stepDelayMs: 0 });

/** The value of an outcome these tests expect to succeed. */
function valueOf<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`unexpected ${outcome.failure.kind}: ${outcome.failure.detail}`);
  return outcome.value;
}
const createDeployment = async (...args: Parameters<typeof deployments.createDeployment>) => valueOf(await deployments.createDeployment(...args));
const patchDeployment = async (...args: Parameters<typeof patching.patchDeployment>) => valueOf(await patching.patchDeployment(...args));

const TENANT = '6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f';

async function setup() {
  const store = await openJournalStore({ dataDir: null });
  const history: [string, string][] = [];
  const write = store.write.bind(store);
  store.write = async (ops: WriteOp[]) => {
    for (const op of ops) if (op.collection === COLLECTIONS.revisions && 'value' in op) history.push([op.id, (op.value as { status: string }).status]);
    return write(ops);
  };
  const repo = new CollectionControlPlane(store);
  const deployer = simulatedEngine(repo);
  const settled = async (revisionId: string) => {
    for (let i = 0; i < 1000; i += 1) {
      const revision = await repo.revisions.get(revisionId);
      if (revision && isFinished(revision.status)) return revision;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    throw new Error('revision did not finish');
  };
  const statusesOf = (id: string) => history.filter(([rid]) => rid === id).map(([, status]) => status);
  return { store, repo, deployer, settled, statusesOf, history };
}

const github = {
  name: 'agent',
  source: 'github' as const,
  source_config: { repo_url: 'https://github.com/acme/agent' },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
};

describe('simulated deployer', () => {
  it('takes a github revision through every phase and activates it', async () => {
    const { repo, deployer, settled, statusesOf } = await setup();
    const created = await createDeployment({ repo, deployer, log: createLogger('silent') }, TENANT, github, 'http://127.0.0.1:1');
    await settled(created.latest_revision_id!);
    assert.deepEqual(statusesOf(created.latest_revision_id!), ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
    const deployment = await repo.deployments.get(created.id);
    assert.equal(deployment?.status, 'READY');
    assert.equal(deployment?.active_revision_id, created.latest_revision_id);
    await deployer.stop();
  });

  it('skips the build phases for an image source', async () => {
    const { repo, deployer, settled, statusesOf } = await setup();
    const created = await createDeployment(
      { repo, deployer, log: createLogger('silent') },
      TENANT,
      { name: 'img', source: 'internal_docker', source_config: {}, source_revision_config: { image_uri: 'img:1' } },
      'http://x',
    );
    await settled(created.latest_revision_id!);
    assert.deepEqual(statusesOf(created.latest_revision_id!), ['CREATING', 'QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
    await deployer.stop();
  });

  it('builds one revision of a deployment at a time; a newer one waits in QUEUED', async () => {
    const { repo, deployer, settled, statusesOf, history } = await setup();
    const created = await createDeployment({ repo, deployer, log: createLogger('silent') }, TENANT, github, 'http://x');
    const first = created.latest_revision_id!;
    // patch once the first revision holds the build slot
    while (!['BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING'].includes((await repo.revisions.get(first))!.status)) await new Promise((r) => setTimeout(r, 1));
    const patched = await patchDeployment({ repo, deployer, log: createLogger('silent') }, TENANT, created.id, {
      source_revision_config: { repo_ref: 'next' },
    });
    const second = patched.latest_revision_id!;
    await settled(second);
    assert.equal((await repo.revisions.get(first))!.status, 'DEPLOYED');
    const order = history.map(([id, status]) => `${id}:${status}`);
    assert.ok(order.indexOf(`${second}:AWAITING_BUILD`) > order.indexOf(`${first}:DEPLOYED`), 'the newer revision waited for the older one');
    assert.deepEqual(statusesOf(second).slice(0, 3), ['CREATING', 'QUEUED', 'AWAITING_BUILD']);
    assert.equal((await repo.deployments.get(created.id))!.active_revision_id, second);
    await deployer.stop();
  });

  it('resumes unfinished revisions after a stop', async () => {
    const { repo, deployer, settled } = await setup();
    const created = await createDeployment({ repo, deployer, log: createLogger('silent') }, TENANT, github, 'http://x');
    await deployer.stop();
    const before = (await repo.revisions.get(created.latest_revision_id!))!.status;
    assert.ok(!isFinished(before));
    const next = simulatedEngine(repo);
    await next.start();
    assert.equal((await settled(created.latest_revision_id!)).status, 'DEPLOYED');
    await next.stop();
  });
  it('a step whose write fails (a full disk) is tried again until it succeeds, so the revision is not left half-way', async () => {
    const store = await openJournalStore({ dataDir: null });
    const write = store.write.bind(store);
    let failures = 0;
    store.write = async (ops: WriteOp[]) => {
      if (failures > 0) {
        failures -= 1;
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      return write(ops);
    };
    const repo = new CollectionControlPlane(store);
    const deployer = simulatedEngine(repo, 1);
    const created = await createDeployment({ repo, deployer, log: createLogger('silent') }, TENANT, github, 'http://127.0.0.1:1');
    failures = 4; // the next four writes of the deployer fail, then the disk has room again
    let revision = await repo.revisions.get(created.latest_revision_id!);
    for (let i = 0; i < 2000 && !isFinished(revision!.status); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      revision = await repo.revisions.get(created.latest_revision_id!);
    }
    assert.equal(revision?.status, 'DEPLOYED', 'the revision was left half-way after a failed write');
    assert.equal(failures, 0, 'the injected failures were not all met');
    assert.equal((await repo.deployments.get(created.id))?.active_revision_id, created.latest_revision_id);
    await deployer.stop();
  });
});
