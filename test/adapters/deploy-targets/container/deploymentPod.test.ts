// resource_spec as container limits (the container deployer's pods): each request and limit
// maps to its podman flag, and an unset limit is twice its request, as upstream defaults it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { replicaCount, replicaPort, resourceArgs } from '../../../../src/adapters/deploy-targets/container/deploymentPod.ts';

describe('container limits from resource_spec', () => {
  it('maps requests and limits to podman flags', () => {
    assert.deepEqual(resourceArgs({ cpu: 0.5, cpu_limit: 1.5, memory_mb: 256, memory_limit_mb: 1024 }), [
      '--memory',
      '1024m',
      '--memory-reservation',
      '256m',
      '--cpus',
      '1.5',
      '--cpu-shares',
      '512',
    ]);
  });

  it('defaults each limit to twice its request, and sets nothing for a null spec', () => {
    assert.deepEqual(resourceArgs({ cpu: 1, memory_mb: 512 }), ['--memory', '1024m', '--memory-reservation', '512m', '--cpus', '2', '--cpu-shares', '1024']);
    assert.deepEqual(resourceArgs({ memory_limit_mb: 300 }), ['--memory', '300m']);
    assert.deepEqual(resourceArgs(null), []);
  });

  it('runs min_scale replicas (at least one), each on its own port of the pod', () => {
    assert.equal(replicaCount(null), 1);
    assert.equal(replicaCount({ min_scale: 0 }), 1);
    assert.equal(replicaCount({ min_scale: 3 }), 3);
    assert.equal(replicaPort(0, 1), 8000);
    assert.deepEqual(
      [0, 1, 2].map((i) => replicaPort(i, 3)),
      [8001, 8002, 8003],
    );
  });
});
