// One address's upgrades that are neither upgraded nor closed are bounded (issue 83: key-less
// upgrades held without end took every descriptor); another address is not held to its count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { UnsettledUpgrades } from '../../../../src/runtime/transports/websocket/unsettledUpgrades.ts';

const closedOnce = (socket: PassThrough) =>
  new Promise<void>((resolve) => {
    socket.once('close', () => setImmediate(resolve));
    socket.destroy();
  });

test('an address at its bound is refused until one of its sockets closes or is upgraded; another address keeps its own count', async () => {
  const unsettled = new UnsettledUpgrades(2);
  const [a1, a2, a3, b1] = [new PassThrough(), new PassThrough(), new PassThrough(), new PassThrough()];
  assert.equal(unsettled.take('10.0.0.1', a1), true);
  assert.equal(unsettled.take('10.0.0.1', a2), true);
  assert.equal(unsettled.take('10.0.0.1', a3), false);
  assert.equal(unsettled.take('10.0.0.2', b1), true);
  await closedOnce(a1);
  assert.equal(unsettled.of('10.0.0.1'), 1);
  assert.equal(unsettled.take('10.0.0.1', a3), true);
  // upgraded: it no longer counts, and its later close does not count down twice
  unsettled.settle(a2);
  unsettled.settle(a2);
  await closedOnce(a2);
  assert.equal(unsettled.of('10.0.0.1'), 1);
  assert.equal(unsettled.of('10.0.0.2'), 1);
});
