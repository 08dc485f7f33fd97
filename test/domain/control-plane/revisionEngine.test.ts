// The revision engine over a scripted deploy target and the embedded store (no server, no
// timing): every transition it stores, a failing build and deploy, a step that throws, a
// retire in the middle of a build, a restart, a newer revision superseding a queued one, and
// the order of each deployment's jobs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import type { WriteOp } from '../../../src/domain/ports/store.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';
import type { DeploymentRecord, RevisionRecord } from '../../../src/domain/control-plane/records.ts';
import { COLLECTIONS, CollectionControlPlane } from '../../../src/adapters/embedded/collectionControlPlane.ts';
import { RevisionEngine } from '../../../src/domain/control-plane/revisionEngine.ts';
import { isFinished } from '../../../src/domain/control-plane/revisionStateMachine.ts';
import type { BuildOutcome, DeployOutcome, DeployTarget } from '../../../src/domain/control-plane/deployTarget.ts';
import * as deployments from '../../../src/domain/control-plane/deployments.ts';
import * as patching from '../../../src/domain/control-plane/patchDeployment.ts';
import type { Outcome } from '../../../src/domain/outcome.ts';

const TENANT = '6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f';
const SHA = 'c'.repeat(40);
const SECRET = 'sk-live-7a1b9f3e';
const silent = createLogger(process.env.DEBUG_ENGINE ? 'debug' : 'silent');

function valueOf<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`unexpected ${outcome.failure.kind}: ${outcome.failure.detail}`);
  return outcome.value;
}

/** A promise with its resolver, to hold a step until the test lets it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Resolves when the signal aborts (never otherwise). */
const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve())));

/** A target that does what each test scripts, and records what it was asked, in order. */
class ScriptedTarget implements DeployTarget {
  builds = true;
  readonly calls: string[] = [];
  onBuild: (deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal) => Promise<BuildOutcome> = async () => ({ ok: true, commitSha: SHA });
  onDeploy: (deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal) => Promise<DeployOutcome> = async () => ({
    ok: true,
    url: 'http://target.test:7001',
  });

  build(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<BuildOutcome> {
    this.calls.push(`build ${revision.id}`);
    return this.onBuild(deployment, revision, signal);
  }
  deploy(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<DeployOutcome> {
    this.calls.push(`deploy ${revision.id}`);
    return this.onDeploy(deployment, revision, signal);
  }
  async restore(deploymentId: string): Promise<void> {
    this.calls.push(`restore ${deploymentId}`);
  }
  async remove(deploymentId: string): Promise<void> {
    this.calls.push(`remove ${deploymentId}`);
  }
  async logs(): Promise<never> {
    throw new Error('not read here');
  }
}

async function setup(target = new ScriptedTarget()) {
  const store = await openJournalStore({ dataDir: null });
  const history: [string, string][] = [];
  const write = store.write.bind(store);
  let failWrites = 0;
  store.write = async (ops: WriteOp[]) => {
    if (failWrites > 0) {
      failWrites -= 1;
      throw new Error('ENOSPC: no space left on device, write');
    }
    for (const op of ops) if (op.collection === COLLECTIONS.revisions && 'value' in op) history.push([op.id, (op.value as RevisionRecord).status]);
    return write(ops);
  };
  const repo = new CollectionControlPlane(store);
  const engineOver = (t: DeployTarget) => new RevisionEngine(repo, t, silent, { retryMs: 1 });
  const engine = engineOver(target);
  const deps = { repo, deployer: engine, log: silent };
  const until = async <T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> => {
    for (let i = 0; i < 2000; i += 1) {
      const value = await probe();
      if (value) return value;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    throw new Error(`timed out waiting until ${what}`);
  };
  const settled = (id: string) => until(`revision ${id} finished`, async () => ((r) => r && isFinished(r.status) && r)(await repo.revisions.get(id)));
  const statusOf = async (id: string) => (await repo.revisions.get(id))?.status;
  const statusesOf = (id: string) => history.filter(([rid]) => rid === id).map(([, status]) => status);
  const create = async (body: Record<string, unknown>, on = deps) => valueOf(await deployments.createDeployment(on, TENANT, body as never, 'http://cp.test'));
  const patch = async (id: string, body: Record<string, unknown>, on = deps) => valueOf(await patching.patchDeployment(on, TENANT, id, body as never));
  return {
    store,
    repo,
    target,
    engine,
    engineOver,
    deps,
    until,
    settled,
    statusOf,
    statusesOf,
    create,
    patch,
    failNextWrites: (n: number) => (failWrites = n),
  };
}

const github = (name = 'agent', extra: Record<string, unknown> = {}) => ({
  name,
  source: 'github',
  source_config: { repo_url: 'https://github.com/acme/agent', ...extra },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
  secrets: [{ name: 'API_TOKEN', value: SECRET }],
});
const image = (name: string, customUrl?: string) => ({
  name,
  source: 'external_docker',
  source_config: customUrl ? { custom_url: customUrl } : {},
  source_revision_config: { image_uri: 'registry.test/agent:1' },
});

describe('revision engine', () => {
  it('stores every status of a github revision in order, then activates it at the URL the target gives', async () => {
    const t = await setup();
    const created = await t.create(github());
    const done = await t.settled(created.latest_revision_id!);
    assert.deepEqual(t.statusesOf(done.id), ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
    assert.equal(done.source_revision_config.repo_commit_sha, SHA);
    assert.equal(done.status_message, null);
    const deployment = await t.repo.deployments.get(created.id);
    assert.equal(deployment?.status, 'READY');
    assert.equal(deployment?.active_revision_id, done.id);
    assert.equal(deployment?.source_config.custom_url, 'http://target.test:7001');
    assert.deepEqual(t.target.calls, [`build ${done.id}`, `deploy ${done.id}`]);
    await t.engine.stop();
  });

  it("skips the build of an image; the client's own URL stays, else the target's is given", async () => {
    const t = await setup();
    const own = await t.create(image('own', 'https://agents.acme.test'));
    const plain = await t.create(image('plain'));
    for (const d of [own, plain])
      assert.deepEqual(t.statusesOf((await t.settled(d.latest_revision_id!)).id), ['CREATING', 'QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
    assert.equal((await t.repo.deployments.get(own.id))?.source_config.custom_url, 'https://agents.acme.test');
    assert.equal((await t.repo.deployments.get(plain.id))?.source_config.custom_url, 'http://target.test:7001');
    assert.ok(!t.target.calls.some((c) => c.startsWith('build')));
    await t.engine.stop();
  });

  it('a target of images never builds: a github revision goes straight to its deploy', async () => {
    const target = new ScriptedTarget();
    target.builds = false;
    const t = await setup(target);
    const created = await t.create(github());
    await t.settled(created.latest_revision_id!);
    assert.deepEqual(t.statusesOf(created.latest_revision_id!), ['CREATING', 'QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
    await t.engine.stop();
  });

  it('a failing build is BUILD_FAILED with its reason, secrets masked, and the serving revision stays active', async () => {
    const t = await setup();
    const created = await t.create(github());
    const good = await t.settled(created.latest_revision_id!);
    t.target.onBuild = async () => ({ ok: false, reason: `Build failed: npm printed ${SECRET}`, commitSha: SHA });
    const patched = await t.patch(created.id, { source_revision_config: { repo_ref: 'broken' } });
    const failed = await t.settled(patched.latest_revision_id!);
    assert.equal(failed.status, 'BUILD_FAILED');
    assert.match(failed.status_message!, /^Build failed: npm printed /);
    assert.ok(!failed.status_message!.includes(SECRET), failed.status_message!);
    assert.equal(failed.source_revision_config.repo_commit_sha, SHA);
    assert.equal((await t.repo.deployments.get(created.id))?.active_revision_id, good.id);
    assert.ok(!t.target.calls.includes(`deploy ${failed.id}`));
    await t.engine.stop();
  });

  it('a failing deploy is DEPLOY_FAILED with its reason and activates nothing', async () => {
    const t = await setup();
    t.target.onDeploy = async () => ({ ok: false, reason: 'Deploy failed: the server did not answer /ok' });
    const created = await t.create(image('broken'));
    const failed = await t.settled(created.latest_revision_id!);
    assert.equal(failed.status, 'DEPLOY_FAILED');
    assert.equal(failed.status_message, 'Deploy failed: the server did not answer /ok');
    assert.equal((await t.repo.deployments.get(created.id))?.active_revision_id, null);
    await t.engine.stop();
  });

  it('a step that throws (a lost connection, a full disk) is tried again from what is stored until it succeeds', async () => {
    const t = await setup();
    let throws = 2;
    t.target.onBuild = async () => {
      if (throws-- > 0) throw new Error('ECONNRESET');
      return { ok: true, commitSha: SHA };
    };
    const created = await t.create(github());
    const done = await t.settled(created.latest_revision_id!);
    assert.equal(done.status, 'DEPLOYED');
    assert.equal(t.target.calls.filter((c) => c.startsWith('build')).length, 3);
    // each status stored once, however many attempts it took
    assert.deepEqual(t.statusesOf(done.id), ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);

    const patched = await t.patch(created.id, { source_revision_config: { repo_ref: 'next' } });
    t.failNextWrites(3);
    assert.equal((await t.settled(patched.latest_revision_id!)).status, 'DEPLOYED');
    await t.engine.stop();
  });

  it('a retire in the middle of a build stops the build, stores nothing more of the revision and removes the deployment', async () => {
    const t = await setup();
    const building = gate();
    t.target.onBuild = async (_d, _r, signal) => {
      building.open();
      await aborted(signal);
      return { ok: false, reason: 'Build stopped.' };
    };
    const created = await t.create(github());
    await building.opened;
    valueOf(await deployments.deleteDeployment(t.deps, TENANT, created.id, false));
    await t.until('the deployment is gone', async () => !(await t.repo.deployments.get(created.id)));
    assert.equal(t.statusesOf(created.latest_revision_id!).at(-1), 'BUILDING');
    assert.deepEqual(t.target.calls, [`build ${created.latest_revision_id}`, `remove ${created.id}`]);
    assert.equal(await t.repo.revisions.get(created.latest_revision_id!), undefined);
    await t.engine.stop();
  });

  it('after a restart a new engine over the same store restores what served, continues unfinished revisions and finishes deletions', async () => {
    const t = await setup();
    const serving = await t.create(image('serving'));
    await t.settled(serving.latest_revision_id!);
    const building = gate();
    t.target.onBuild = async (_d, _r, signal) => {
      building.open();
      await aborted(signal);
      return { ok: false, reason: 'Build stopped.' };
    };
    const unfinished = await t.create(github('unfinished'));
    await building.opened;
    // a deletion stored, and the engine gone before it could clean up
    const deleting = await t.create(image('deleting'));
    await t.settled(deleting.latest_revision_id!);
    await t.engine.stop();
    const current = (await t.repo.deployments.get(deleting.id))!;
    await t.repo.deployments.put({ ...current, status: 'AWAITING_DELETE' });
    assert.equal(await t.statusOf(unfinished.latest_revision_id!), 'BUILDING');

    const after = new ScriptedTarget();
    const engine = t.engineOver(after);
    await engine.start();
    assert.equal((await t.settled(unfinished.latest_revision_id!)).status, 'DEPLOYED');
    await t.until('the deletion finished', async () => !(await t.repo.deployments.get(deleting.id)));
    assert.ok(after.calls.includes(`restore ${serving.id}`));
    assert.ok(after.calls.includes(`remove ${deleting.id}`));
    // the build in progress at the stop is done again, from its stored status
    assert.deepEqual(
      after.calls.filter((c) => c.endsWith(unfinished.latest_revision_id!)),
      [`build ${unfinished.latest_revision_id}`, `deploy ${unfinished.latest_revision_id}`],
    );
    await engine.stop();
  });

  it('a newer revision supersedes one still queued (SKIPPED), which the target never sees', async () => {
    const t = await setup();
    const building = gate();
    const release = gate();
    t.target.onBuild = async () => {
      building.open();
      await release.opened;
      return { ok: true, commitSha: SHA };
    };
    const created = await t.create(github());
    await building.opened;
    const queued = (await t.patch(created.id, { source_revision_config: { repo_ref: 'second' } })).latest_revision_id!;
    const newest = (await t.patch(created.id, { source_revision_config: { repo_ref: 'third' } })).latest_revision_id!;
    assert.equal(await t.statusOf(queued), 'SKIPPED');
    release.open();
    assert.equal((await t.settled(newest)).status, 'DEPLOYED');
    const skipped = (await t.repo.revisions.get(queued))!;
    assert.equal(skipped.status, 'SKIPPED');
    assert.equal(skipped.status_message, `Superseded by revision ${newest}.`);
    assert.ok(!t.target.calls.some((c) => c.endsWith(queued)));
    assert.equal((await t.repo.deployments.get(created.id))?.active_revision_id, newest);
    await t.engine.stop();
  });

  it("runs each deployment's jobs one at a time in order, while another deployment's go on", async () => {
    const t = await setup();
    const release = gate();
    const building = gate();
    t.target.onBuild = async (deployment) => {
      if (deployment.name === 'slow') {
        building.open();
        await release.opened;
      }
      return { ok: true, commitSha: SHA };
    };
    const slow = await t.create(github('slow'));
    await building.opened;
    const second = (await t.patch(slow.id, { source_revision_config: { repo_ref: 'second' } })).latest_revision_id!;
    const other = await t.create(image('other'));
    // the other deployment is done while the slow one's first revision still builds
    assert.equal((await t.settled(other.latest_revision_id!)).status, 'DEPLOYED');
    assert.equal(await t.statusOf(second), 'CREATING');
    release.open();
    await t.settled(second);
    const first = slow.latest_revision_id!;
    assert.deepEqual(
      t.target.calls.filter((c) => c.includes(first) || c.includes(second)),
      [`build ${first}`, `deploy ${first}`, `build ${second}`, `deploy ${second}`],
    );
    assert.equal((await t.repo.deployments.get(slow.id))?.active_revision_id, second);
    await t.engine.stop();
  });
});
