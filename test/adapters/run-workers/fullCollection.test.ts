// A run worker's full garbage collection after its warm-up (issue 89): it collects what nothing
// holds, and exposes no `gc` to anything else.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import vm from 'node:vm';
import { fullCollection } from '../../../src/adapters/run-workers/fullCollection.ts';

it('collects what nothing holds, and leaves gc unexposed', async () => {
  const held = (() => new WeakRef({ garbage: 'x'.repeat(1024) }))();
  // a WeakRef's target is kept until the job that made it ends
  await turn();
  fullCollection();
  assert.equal(held.deref(), undefined);
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
  assert.equal(vm.runInNewContext('typeof gc'), 'undefined', 'a context made afterwards has none');
});
