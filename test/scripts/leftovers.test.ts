// What CI reports a step left on the machine (scripts/leftovers.ts): what was made since the
// step began, under the names the suites give what they make, nothing else on the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imagesBuiltSince, madeSince } from '../../scripts/leftovers.ts';

test('only what the step made is named, and only under the suites’ names', () => {
  const before = { '/tmp': ['agentplane-test-old', 'systemd-private-1'], 'podman images': ['localhost/agentplane-server:aaa'], 'podman pods': [] };
  const after = {
    '/tmp': ['agentplane-test-old', 'systemd-private-1', 'agentplane-image-x1', 'paged-store-y2', 'someone-elses'],
    'podman images': ['localhost/agentplane-server:aaa', 'localhost/agentplane-deployment-1:r', 'docker.io/library/alpine:3'],
    'podman pods': ['agentplane-dep-1'],
    'podman volumes': [],
  };
  assert.deepEqual(madeSince(before, after), {
    '/tmp': ['agentplane-image-x1', 'paged-store-y2'],
    'podman images': ['localhost/agentplane-deployment-1:r'],
    'podman pods': ['agentplane-dep-1'],
  });
  assert.deepEqual(madeSince(after, after), {});
});

test('at the end of a CI run, the images it built are named for removal; a cache that was there before it began is not', () => {
  const start = { 'podman images': ['localhost/agentplane-server:cached', 'docker.io/library/alpine:3'], '/tmp': [] };
  const now = {
    'podman images': [
      'localhost/agentplane-server:cached',
      'localhost/agentplane-server:new1',
      'localhost/agentplane-toolchain:node20-abc',
      'localhost/agentplane-test-postgres:def',
      'docker.io/library/alpine:3',
      'docker.io/library/debian:12',
    ],
    '/tmp': ['agentplane-x'],
  };
  assert.deepEqual(imagesBuiltSince(start, now), [
    'localhost/agentplane-server:new1',
    'localhost/agentplane-toolchain:node20-abc',
    'localhost/agentplane-test-postgres:def',
  ]);
  assert.deepEqual(imagesBuiltSince(now, now), []);
});
