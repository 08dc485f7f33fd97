// What each deploy target refuses at the API (targetRules.ts): a change that would move a
// deployment's data, and what kube-local cannot play — each a field and the reason.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { targetProblems } from '../../../src/domain/control-plane/targetRules.ts';
import { fullResourceSpec } from '../../containers/fullResourceSpec.ts';

const db = [{ name: 'DATABASE_URL' }];
const locs = (problems: { loc: (string | number)[] }[]) => problems.map((p) => p.loc.join('.'));

describe('container target: where the data lives never changes silently', () => {
  it('refuses several replicas without a shared database, at create and on a PATCH', () => {
    const refused = targetProblems('container', { resource_spec: { min_scale: 2 }, secrets: [] }, null);
    assert.deepEqual(locs(refused), ['source_config.resource_spec.min_scale']);
    assert.match(refused[0]!.msg, /cannot share the one replica's volume.*DATABASE_URL/);
    assert.deepEqual(targetProblems('container', { resource_spec: { min_scale: 2 }, secrets: [] }, { resource_spec: null, secrets: [] }).length, 1);
  });

  it('lets a deployment with its database scale 1 → 2 → 1', () => {
    assert.deepEqual(targetProblems('container', { resource_spec: { min_scale: 2 }, secrets: db }, { resource_spec: { min_scale: 1 }, secrets: db }), []);
    assert.deepEqual(targetProblems('container', { resource_spec: { min_scale: 1 }, secrets: db }, { resource_spec: { min_scale: 2 }, secrets: db }), []);
  });

  it('refuses adding or removing DATABASE_URL once the deployment exists: its data would stay behind', () => {
    const added = targetProblems('container', { resource_spec: { min_scale: 2 }, secrets: db }, { resource_spec: null, secrets: [] });
    assert.deepEqual(locs(added), ['secrets']);
    assert.match(added[0]!.msg, /move the deployment's data from its volume/);
    const removed = targetProblems('container', { resource_spec: null, secrets: [] }, { resource_spec: null, secrets: db });
    assert.deepEqual(locs(removed), ['secrets']);
    assert.match(removed[0]!.msg, /to an empty volume/);
  });
});

describe('kube-local: plays every field or refuses it', () => {
  it("plays the seed's full resource_spec (Redis aside)", () => {
    assert.deepEqual(targetProblems('kube-local', { resource_spec: fullResourceSpec('img'), secrets: [] }, null), []);
  });

  it('refuses several replicas of a workload, volumes it cannot mount, and Redis, each at its field', () => {
    const refused = targetProblems(
      'kube-local',
      {
        resource_spec: {
          min_scale: 2,
          queue_min_scale: 3,
          redis_memory_mb: 64,
          volumes: [{ name: 'ok', emptyDir: {} }, { name: 'conf', configMap: { name: 'x' } } as never, { name: 'meta', downwardAPI: { items: [] } } as never],
        },
        secrets: [],
      },
      null,
    );
    assert.deepEqual(locs(refused).sort(), [
      'source_config.resource_spec.min_scale',
      'source_config.resource_spec.queue_min_scale',
      'source_config.resource_spec.redis_memory_mb',
      'source_config.resource_spec.volumes.1.configMap',
      'source_config.resource_spec.volumes.2.downwardAPI',
    ]);
    assert.ok(refused.every((p) => p.msg.length > 40));
  });

  it('the cluster refuses only Redis; the simulated and local targets nothing', () => {
    assert.deepEqual(locs(targetProblems('kubernetes', { resource_spec: { min_scale: 5, redis_cpu: 1 }, secrets: [] }, null)), [
      'source_config.resource_spec.redis_cpu',
    ]);
    assert.deepEqual(targetProblems('simulated', { resource_spec: { min_scale: 5 }, secrets: [] }, null), []);
  });
});
