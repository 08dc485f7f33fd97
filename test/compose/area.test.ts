// The areas split the contract: every operation is served by exactly one area, and the whole
// application is the areas merged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { handledOperationIds as controlPlaneIds } from '../../generated/control-plane/operations.gen.ts';
import { handledOperationIds as agentServerIds } from '../../generated/agent-server/operations.gen.ts';
import { AREAS, areaOperations, mergeAreas, type Area } from '../../src/compose/area.ts';

test('each operation of the contract belongs to exactly one area', () => {
  const all = [...controlPlaneIds, ...agentServerIds].sort();
  const byArea = AREAS.flatMap((name) => areaOperations(name)).sort();
  assert.deepEqual(byArea, all);
  assert.ok(areaOperations('a2a').includes('a2aRpc') && areaOperations('a2a').includes('getAgentCard'));
  assert.ok(areaOperations('a2a').some((id) => id.startsWith('a2aRest')));
  assert.ok(!areaOperations('agent-server').includes('a2aRpc') && areaOperations('agent-server').includes('createAssistant'));
  assert.ok(areaOperations('control-plane').includes('createDeployment'));
});

test("merged areas answer with each area's handlers and modules, and reload each area", async () => {
  const reloaded: string[] = [];
  const handler = async () => ({ status: 200 as const, body: {} });
  const areas: Area[] = [
    { name: 'control-plane', handlers: { createDeployment: handler }, modules: [{}] },
    {
      name: 'agent-server',
      handlers: { createAssistant: handler },
      modules: [{}, {}],
      reload: async () => void reloaded.push('agent-server'),
    },
  ];
  const app = mergeAreas(areas);
  assert.deepEqual(Object.keys(app.handlers).sort(), ['createAssistant', 'createDeployment']);
  assert.equal(app.modules.length, 3);
  await app.reload!();
  assert.deepEqual(reloaded, ['agent-server']);
});
