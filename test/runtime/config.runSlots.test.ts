// A tenant's share of the run slots (AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT, issue 83): by default all
// but one of AGENTPLANE_MAX_CONCURRENT_RUNS, at least one; named, it is taken as it is; a value that
// is no positive integer stops the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/runtime/config.ts';
import { tempDir } from '../support/server.ts';

const load = (env: Record<string, string> = {}) => loadConfig(['--memory'], { ...env }, tempDir());

test('by default all but one of the run slots, at least one', () => {
  assert.deepEqual([load().maxConcurrentRuns, load().maxRunSlotsPerTenant], [10, 9]);
  assert.equal(load({ AGENTPLANE_MAX_CONCURRENT_RUNS: '4' }).maxRunSlotsPerTenant, 3);
  assert.equal(load({ AGENTPLANE_MAX_CONCURRENT_RUNS: '1' }).maxRunSlotsPerTenant, 1);
});

test('named, it is taken as it is; a value that is no positive integer stops the start', () => {
  assert.equal(load({ AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT: '2' }).maxRunSlotsPerTenant, 2);
  for (const bad of ['0', '-1', 'many', '1.5'])
    assert.throws(() => load({ AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT: bad }), /AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT/, bad);
});
