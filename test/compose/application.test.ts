// composeApplication: the areas asked for, merged (A2A with the agent server it is built on).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeApplication } from '../../src/compose/application.ts';
import { areaOperations } from '../../src/compose/area.ts';
import { memoryPorts } from '../../src/compose/ports/memory.ts';

const sorted = (ids: Iterable<string>) => [...ids].sort();

test('the application of some areas has their handlers only; A2A brings the agent server', async () => {
  const ports = await memoryPorts();
  try {
    const controlPlane = await composeApplication(['control-plane'])(ports);
    assert.deepEqual(sorted(Object.keys(controlPlane.handlers)), sorted(areaOperations('control-plane')));
    assert.deepEqual(Object.keys(controlPlane.methods), []);
    const a2a = await composeApplication(['a2a'])(ports);
    assert.deepEqual(sorted(Object.keys(a2a.handlers)), sorted([...areaOperations('agent-server'), ...areaOperations('a2a')]));
    assert.equal(typeof a2a.methods['message/send'], 'function');
    for (const module of a2a.modules) await module.stop?.();
  } finally {
    await ports.close();
  }
});
