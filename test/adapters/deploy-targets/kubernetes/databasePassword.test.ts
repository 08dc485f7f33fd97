// The Kubernetes target's database password for a deployment: made once and kept (only the
// control plane reads it), so every revision's server reaches the database the first one made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { databasePassword } from '../../../../src/adapters/deploy-targets/kubernetes/databasePassword.ts';
import { tempDir } from '../../../support/server.ts';

test('a deployment keeps its database password across revisions and restarts; another gets its own', () => {
  const root = tempDir('agentplane-db-password-');
  const first = databasePassword(path.join(root, 'dep-a'));
  assert.match(first, /^[0-9a-f]{48}$/);
  assert.equal(databasePassword(path.join(root, 'dep-a')), first);
  assert.equal(fs.statSync(path.join(root, 'dep-a', 'database-password')).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.join(root, 'dep-a')).mode & 0o777, 0o700);
  assert.notEqual(databasePassword(path.join(root, 'dep-b')), first);
});
