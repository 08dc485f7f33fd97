// The revision engine's two options (src/domain/control-plane/revisionEngine.ts). Leadership:
// among replicas sharing the store only the leader drives; a revision stored on a follower
// reaches the leader, and when the leader stops the next one takes over what is unfinished.
// Ownership: a deployment its listener reconciles is passed over, its logs read from what
// the listener sent.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { simulatedTarget } from '../../../src/adapters/deploy-targets/simulated/simulatedTarget.ts';
import { KeyedLock } from '../../../src/domain/keyedLock.ts';
import type { Coordination, Singleton } from '../../../src/domain/ports/coordination.ts';
import { type ControlPlaneRepository, putDeployment, type RevisionRecord } from '../../../src/domain/control-plane/records.ts';
import { CollectionControlPlane } from '../../../src/adapters/embedded/collectionControlPlane.ts';
import { RevisionEngine } from '../../../src/domain/control-plane/revisionEngine.ts';
import type { RevisionDriver } from '../../../src/domain/control-plane/deployer/types.ts';
import type { DeployTarget } from '../../../src/domain/control-plane/deployTarget.ts';
import { listenerOwnership } from '../../../src/domain/control-plane/deployer/remoteReconciliation.ts';
import type { RemoteRevisionLogs } from '../../../src/domain/control-plane/remoteRevisionLogs.ts';
import * as deployments from '../../../src/domain/control-plane/deployments.ts';
import { isFinished } from '../../../src/domain/control-plane/revisionStateMachine.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';
import type { Outcome } from '../../../src/domain/outcome.ts';

const TENANT = '6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f';
const silent = createLogger('silent');
const image = (name: string) => ({
  name,
  source: 'external_docker' as const,
  source_config: {},
  source_revision_config: { image_uri: 'docker.io/acme/agent:1' },
});

function valueOf<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`unexpected ${outcome.failure.kind}: ${outcome.failure.detail}`);
  return outcome.value;
}

/** Replicas of one database, in process: one lease per name, held by the first to ask until it stops; messages reach every replica. */
class SharedDatabase {
  readonly bus = new EventEmitter().setMaxListeners(0);
  readonly locks = new KeyedLock();
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly held = new Set<string>();

  replica(replicaId: string): Coordination {
    return {
      shared: true,
      replicaId,
      serialize: (key, work) => this.locks.run(key, work),
      singleton: (name, lead) => this.singleton(name, lead),
      notify: async (channel, payload) => void queueMicrotask(() => this.bus.emit(channel, payload)),
      listen: (channel, handler) => {
        this.bus.on(channel, handler);
        return () => this.bus.off(channel, handler);
      },
      close: async () => undefined,
    };
  }

  private singleton(name: string, lead: (signal: AbortSignal) => Promise<void> | void): Singleton {
    const controller = new AbortController();
    let led: Promise<void> = Promise.resolve();
    let stopped = false;
    const take = () => {
      if (stopped) return this.release(name);
      this.held.add(name);
      led = Promise.resolve(lead(controller.signal)).catch(() => undefined);
    };
    if (this.held.has(name)) this.waiting.set(name, [...(this.waiting.get(name) ?? []), take]);
    else take();
    return {
      stop: async () => {
        stopped = true;
        controller.abort();
        await led;
        this.waiting.set(
          name,
          (this.waiting.get(name) ?? []).filter((t) => t !== take),
        );
        if (this.held.has(name)) this.release(name);
      },
    };
  }

  private release(name: string): void {
    this.held.delete(name);
    const next = this.waiting.get(name)?.shift();
    next?.();
  }
}

/** The simulated target, counting the deploys this replica did. */
function countingTarget(): { target: DeployTarget; deploys: string[] } {
  const deploys: string[] = [];
  const target: DeployTarget = {
    ...simulatedTarget,
    deploy: (deployment, revision, signal) => {
      deploys.push(revision.id);
      return simulatedTarget.deploy(deployment, revision, signal);
    },
  };
  return { target, deploys };
}

async function finished(repo: ControlPlaneRepository, id: string): Promise<RevisionRecord> {
  for (let i = 0; i < 2000; i += 1) {
    const revision = await repo.revisions.get(id);
    if (revision && isFinished(revision.status)) return revision;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`revision ${id} did not finish`);
}

describe('the revision engine with leadership', () => {
  it('drives only on the leader: work stored on a follower reaches it, and the next replica takes over on a stop', async () => {
    const store = await openJournalStore({ dataDir: null });
    const database = new SharedDatabase();
    const repo = new CollectionControlPlane(store, { run: (key, work) => database.locks.run(`cp:${key}`, work) });
    const replicas = ['a', 'b'].map((id) => {
      const counted = countingTarget();
      const engine = new RevisionEngine(repo, () => counted.target, silent, {
        retryMs: 1,
        stepDelayMs: 0,
        leadership: { coordination: database.replica(id), repo },
      });
      return { engine, deploys: counted.deploys };
    });
    const [leader, follower] = replicas;
    await leader.engine.start();
    await follower.engine.start();

    const onFollower = valueOf(
      await deployments.createDeployment({ repo, deployer: follower.engine, log: silent }, TENANT, image('on-follower'), 'http://cp.test'),
    );
    assert.equal((await finished(repo, onFollower.latest_revision_id!)).status, 'DEPLOYED');
    assert.deepEqual(leader.deploys, [onFollower.latest_revision_id]);
    assert.deepEqual(follower.deploys, [], 'a follower drives nothing');

    // the leader stops; the follower's term begins and picks up what is unfinished
    await leader.engine.stop();
    const onStopped = valueOf(
      await deployments.createDeployment({ repo, deployer: leader.engine, log: silent }, TENANT, image('on-stopped'), 'http://cp.test'),
    );
    assert.equal((await finished(repo, onStopped.latest_revision_id!)).status, 'DEPLOYED');
    assert.deepEqual(follower.deploys, [onStopped.latest_revision_id]);
    assert.equal(leader.deploys.length, 1);
    await follower.engine.stop();
    await store.close();
  });
});

describe('the revision engine with ownership', () => {
  it("passes over a listener's deployment and reads its logs from what the listener sent", async () => {
    const store = await openJournalStore({ dataDir: null });
    const repo = new CollectionControlPlane(store);
    const sent: RemoteRevisionLogs = {
      append: async () => undefined,
      read: async (revision) => ({ logs: [{ timestamp: 't', level: 'INFO', message: `sent for ${revision.id}` }], next_offset: 1 }) as never,
      remove: async () => undefined,
    };
    const counted = countingTarget();
    const engine = new RevisionEngine(repo, counted.target, silent, { retryMs: 1, stepDelayMs: 0, ownership: listenerOwnership(repo, sent) });
    await engine.start();
    // stored without driving, then handed over to a listener
    const idle: RevisionDriver = {
      submit: () => undefined,
      retire: () => undefined,
      resume: async () => undefined,
      stop: async () => undefined,
      readLogs: engine.readLogs.bind(engine),
    };
    const remote = valueOf(await deployments.createDeployment({ repo, deployer: idle, log: silent }, TENANT, image('remote'), 'http://cp.test'));
    const record = (await repo.deployments.get(remote.id))!;
    await repo.write([putDeployment({ ...record, source_config: { ...record.source_config, listener_id: 'listener-1' } })]);
    const revision = (await repo.revisions.get(remote.latest_revision_id!))!;
    engine.submit(revision);

    const local = valueOf(await deployments.createDeployment({ repo, deployer: engine, log: silent }, TENANT, image('local'), 'http://cp.test'));
    assert.equal((await finished(repo, local.latest_revision_id!)).status, 'DEPLOYED');
    assert.deepEqual(counted.deploys, [local.latest_revision_id], "the listener's revision is not driven here");
    assert.equal((await repo.revisions.get(revision.id))?.status, 'CREATING');
    const logs = await engine.readLogs(revision, 'build', {} as never);
    assert.deepEqual(
      logs.logs.map((line) => line.message),
      [`sent for ${revision.id}`],
    );
    await engine.stop();
    await store.close();
  });
});
