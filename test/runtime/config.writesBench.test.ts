// The writes phases grow one tenant to 100,000 deployments through the API: the settings the
// bench gives those servers must be ones the server reads, and make room for them (the default
// per-tenant quotas refused the warm-up's 101st create and left the phase unmeasured).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { loadConfig } from '../../src/runtime/config.ts';
import { WRITES_QUOTA_ENV } from '../../scripts/bench/writes.ts';

const DEPLOYMENTS_THE_PHASE_MAKES = 100_000 + 2_000; // the top level and the warm-up's creates

test('the writes phases run with per-tenant quotas that hold every deployment they create', () => {
  const policy = loadConfig([], { ...WRITES_QUOTA_ENV }, os.tmpdir()).workloadPolicy;
  assert.ok(policy.maxDeploymentsPerTenant >= DEPLOYMENTS_THE_PHASE_MAKES, `deployments: ${policy.maxDeploymentsPerTenant}`);
  assert.ok(policy.maxReplicasPerTenant >= DEPLOYMENTS_THE_PHASE_MAKES, `replicas: ${policy.maxReplicasPerTenant}`);
});
