// The local and container deploy targets load at the revision engine's first use of them
// (compose/areas/lazyDeployTarget.ts): the target stands in for the loaded one from its first
// call, loads it once, answers as it does, and has nothing to release when it never loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lazyDeployTarget } from '../../../src/compose/areas/lazyDeployTarget.ts';
import type { DeployTarget } from '../../../src/domain/control-plane/deployTarget.ts';
import type { DeploymentRecord, RevisionRecord } from '../../../src/domain/control-plane/records.ts';

function recordingTarget(calls: string[]): DeployTarget {
  return {
    builds: true,
    start: (host) => {
      calls.push('start');
      host.restoreLater('d1');
    },
    release: async () => void calls.push('release'),
    build: async (_d, revision) => (calls.push(`build ${revision.id}`), { ok: true, commitSha: 'abc' }),
    deploy: async () => (calls.push('deploy'), { ok: false, reason: 'no room' }),
    restore: async (id) => void calls.push(`restore ${id}`),
    remove: async (id) => void calls.push(`remove ${id}`),
    logs: async () => (calls.push('logs'), { lines: [], next_cursor: null }) as never,
  };
}

const deployment = { id: 'd1' } as DeploymentRecord;
const revision = { id: 'r1', deployment_id: 'd1' } as RevisionRecord;

test('loads the target at its first use, once, and answers as it does', async () => {
  const calls: string[] = [];
  let loads = 0;
  const lazy = lazyDeployTarget(async () => {
    loads += 1;
    return recordingTarget(calls);
  });
  assert.equal(loads, 0, 'nothing loads before the engine uses the target');
  assert.equal(lazy.builds, true);
  assert.equal(typeof lazy.restore, 'function', 'the engine restores what served after a restart through it');
  const restores: string[] = [];
  // two first uses at once share the one load
  await Promise.all([lazy.start!({ restoreLater: (id) => restores.push(id) }), lazy.build(deployment, revision, new AbortController().signal)]);
  assert.equal(loads, 1);
  assert.deepEqual(restores, ['d1'], 'the host the engine gave reaches the loaded target');
  assert.deepEqual(await lazy.build(deployment, revision, new AbortController().signal), { ok: true, commitSha: 'abc' });
  assert.deepEqual(await lazy.deploy(deployment, revision, new AbortController().signal), { ok: false, reason: 'no room' });
  await lazy.restore!('d1', new AbortController().signal);
  await lazy.remove('d1', deployment);
  await lazy.release!();
  assert.equal(loads, 1);
  assert.deepEqual(calls.sort(), ['build r1', 'build r1', 'deploy', 'release', 'remove d1', 'restore d1', 'start'].sort());
});

test('a target never used is not loaded to be released', async () => {
  let loads = 0;
  const lazy = lazyDeployTarget(async () => {
    loads += 1;
    return recordingTarget([]);
  });
  await lazy.release!();
  assert.equal(loads, 0);
});

test('a target that fails to load fails the call that needed it', async () => {
  const lazy = lazyDeployTarget(async () => {
    throw new Error('no such module');
  });
  await assert.rejects(lazy.deploy(deployment, revision, new AbortController().signal), /no such module/);
});
