// memoryPorts: every port an area is built from, in memory — nothing on disk, the simulated
// target, graphs on the request loop, no project — and any of them replaced by the caller.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryPorts } from '../../../src/compose/ports/memory.ts';
import { composeControlPlane } from '../../../src/compose/areas/controlPlane.ts';
import { areaOperations } from '../../../src/compose/area.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';

test('the ports keep nothing on disk, pace the simulated target, run graphs inline and serve no project', async () => {
  const ports = await memoryPorts();
  try {
    assert.equal(ports.config.dataDir, null);
    assert.equal(ports.config.databaseUrl, null);
    assert.equal(ports.config.deployer, 'simulated');
    assert.equal(ports.config.runWorkers, 0);
    assert.equal(ports.config.configFile, null);
    assert.deepEqual(ports.config.project, {});
    assert.equal(ports.coordination.shared, false);
    assert.ok(ports.config.agentAuth.tokenKey, 'the auth service has a key');
    await ports.store.collection<{ id: string }>('things').put('a', { id: 'a' });
    assert.deepEqual(await ports.store.collection('things').get('a'), { id: 'a' });
  } finally {
    await ports.close();
  }
});

test('each set of ports is its own: a record put through one is not seen through another', async () => {
  const [one, other] = await Promise.all([memoryPorts(), memoryPorts()]);
  try {
    await one.store.collection('things').put('a', { id: 'a' });
    assert.equal(await other.store.collection('things').get('a'), undefined);
  } finally {
    await one.close();
    await other.close();
  }
});

test('a setting or a port given replaces the default, and an area composes over them with every handler of its operations', async () => {
  const lines: string[] = [];
  const log = createLogger('info', {}, (line) => void lines.push(line));
  const ports = await memoryPorts({ log, config: { phaseMs: 1 } });
  try {
    assert.equal(ports.log, log);
    assert.equal(ports.config.phaseMs, 1);
    const area = await composeControlPlane(ports);
    assert.deepEqual(Object.keys(area.handlers).sort(), [...areaOperations('control-plane')].sort());
  } finally {
    await ports.close();
  }
});
