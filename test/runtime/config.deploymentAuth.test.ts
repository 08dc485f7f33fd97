// A server the control plane deploys answers its tenant's keys only, unless the operator says
// otherwise (issue 83): AGENTPLANE_DEPLOYMENT_AUTH is on when unset, and 0 turns it off. The
// deployed server's side is test/adapters/deploy-targets/local.e2e.test.ts (401 without a key or
// with another tenant's, 200 with the deployment's tenant's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/runtime/config.ts';

const deploymentAuthOf = (env: Record<string, string>) => loadConfig(['--memory'], env, process.cwd()).deploymentAuth;

test("deployed servers ask for their tenant's key by default; AGENTPLANE_DEPLOYMENT_AUTH=0 turns it off", () => {
  assert.equal(deploymentAuthOf({}), true);
  assert.equal(deploymentAuthOf({ AGENTPLANE_DEPLOYMENT_AUTH: '' }), true, 'empty is unset');
  assert.equal(deploymentAuthOf({ AGENTPLANE_DEPLOYMENT_AUTH: '0' }), false);
  assert.equal(deploymentAuthOf({ AGENTPLANE_DEPLOYMENT_AUTH: 'off' }), false);
  assert.equal(deploymentAuthOf({ AGENTPLANE_DEPLOYMENT_AUTH: '1' }), true);
  assert.throws(() => deploymentAuthOf({ AGENTPLANE_DEPLOYMENT_AUTH: 'maybe' }), /AGENTPLANE_DEPLOYMENT_AUTH must be 1, true, yes or on/);
});
