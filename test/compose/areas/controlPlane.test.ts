// The control plane composed alone over in-memory ports: a handler for each of its operations,
// the development OAuth provider's among them, which answer only where this server offers it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeControlPlane, memoryPorts } from '../../../src/compose/index.ts';
import { areaOperations } from '../../../src/compose/area.ts';
import type { ServerConfig } from '../../../src/runtime/config.ts';
import type { RequestContext } from '../../../src/runtime/context.ts';

/** What the development provider's handlers read of a request: this server's URL. */
const context = { baseUrl: 'http://127.0.0.1:8123' } as RequestContext;

test("the control plane alone: its operations' handlers, the deployer and the listener watch beside them", async () => {
  const ports = await memoryPorts();
  try {
    const area = await composeControlPlane(ports);
    assert.equal(area.name, 'control-plane');
    assert.deepEqual(Object.keys(area.handlers).sort(), [...areaOperations('control-plane')].sort());
    assert.equal(area.modules.length, 2);
    const page = await area.handlers.devAuthorize({ path: {}, query: {}, headers: {}, body: undefined }, context);
    assert.equal(page.status, 404, 'no development provider unless asked for');
  } finally {
    await ports.close();
  }
});

test("the development OAuth provider's operations answer when it is on, and nothing runs with the control plane off", async () => {
  const withProvider = await memoryPorts();
  const off = await memoryPorts();
  try {
    const agentAuth = { ...withProvider.config.agentAuth, devProvider: true };
    const served = await composeControlPlane({ ...withProvider, config: { ...withProvider.config, agentAuth } as ServerConfig });
    // not an authorization request: its page says why (a 400, never a redirect)
    const page = await served.handlers.devAuthorize({ path: {}, query: { response_type: 'token' }, headers: {}, body: undefined }, context);
    assert.equal(page.status, 400);
    assert.match((page as { text: string }).text, /response_type=code only/);
    const switchedOff = await composeControlPlane({ ...off, config: { ...off.config, controlPlane: false } });
    assert.deepEqual(switchedOff.modules, []);
  } finally {
    await withProvider.close();
    await off.close();
  }
});
