// The control plane composed alone over in-memory ports: a handler for each of its operations,
// and the development OAuth provider's pages only where this server offers it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeControlPlane, memoryPorts } from '../../../src/compose/index.ts';
import { areaOperations } from '../../../src/compose/area.ts';
import type { ServerConfig } from '../../../src/runtime/config.ts';

test("the control plane alone: its operations' handlers, the deployer and the listener watch beside them", async () => {
  const ports = await memoryPorts();
  try {
    const area = await composeControlPlane(ports);
    assert.equal(area.name, 'control-plane');
    assert.deepEqual(Object.keys(area.handlers).sort(), [...areaOperations('control-plane')].sort());
    assert.equal(area.modules.length, 2);
    assert.equal(area.routes, undefined, 'no development provider unless asked for');
  } finally {
    await ports.close();
  }
});

test("the development OAuth provider's pages come with the area when it is on, and nothing runs with the control plane off", async () => {
  const withProvider = await memoryPorts();
  const off = await memoryPorts();
  try {
    const agentAuth = { ...withProvider.config.agentAuth, devProvider: true };
    const served = await composeControlPlane({ ...withProvider, config: { ...withProvider.config, agentAuth } as ServerConfig });
    assert.equal(typeof served.routes, 'function');
    const switchedOff = await composeControlPlane({ ...off, config: { ...off.config, controlPlane: false } });
    assert.deepEqual(switchedOff.modules, []);
  } finally {
    await withProvider.close();
    await off.close();
  }
});
