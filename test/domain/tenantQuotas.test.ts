// A tenant's quotas (domain/tenantQuotas.ts): one more than the bound is refused with a detail
// naming the quota and its setting; creations sent at once cannot together pass the bound; the
// shared space of a server without agent-server auth ('') is no tenant and is never counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedLock } from '../../src/domain/keyedLock.ts';
import { ok } from '../../src/domain/outcome.ts';
import { createWithin, roomFor } from '../../src/domain/tenantQuotas.ts';

test('one over the bound is refused, naming the quota and its setting', async () => {
  const within = await roomFor('threads', 'tenant-a', { threads: 3 }, async () => 2);
  assert.equal(within.ok, true);
  const over = await roomFor('threads', 'tenant-a', { threads: 3 }, async () => 3);
  assert.ok(!over.ok);
  assert.equal(over.failure.kind, 'quota_exceeded');
  assert.match(over.failure.detail, /3 threads.*AGENTPLANE_MAX_THREADS_PER_TENANT/);
  assert.deepEqual(over.failure.data, { quota: 'threads', setting: 'AGENTPLANE_MAX_THREADS_PER_TENANT', limit: 3 });
  const crons = await roomFor('crons', 'tenant-a', { crons: 1 }, async () => 1);
  assert.ok(!crons.ok && /AGENTPLANE_MAX_CRONS_PER_TENANT/.test(crons.failure.detail));
  const items = await roomFor('storeItems', 'tenant-a', { storeItems: 1 }, async () => 5);
  assert.ok(!items.ok && /store items.*AGENTPLANE_MAX_STORE_ITEMS_PER_TENANT/.test(items.failure.detail));
});

test("the shared space ('') and an unbounded quota are never counted", async () => {
  const counted = async () => assert.fail('counted');
  assert.equal((await roomFor('threads', '', { threads: 1 }, counted)).ok, true);
  assert.equal((await roomFor('threads', 'tenant-a', {}, counted)).ok, true);
});

test('creations sent at once hold the bound: the count and the creation are one step per tenant and quota', async () => {
  const locks = new KeyedLock();
  let held = 0;
  const create = () =>
    createWithin(
      'threads',
      'tenant-a',
      { threads: 5 },
      locks,
      async () => held,
      async () => {
        // the write takes a moment, as a store's does
        await new Promise((resolve) => setTimeout(resolve, 2));
        held += 1;
        return ok(held);
      },
    );
  const outcomes = await Promise.all(Array.from({ length: 20 }, create));
  assert.equal(outcomes.filter((o) => o.ok).length, 5);
  assert.equal(held, 5);
  // another tenant has its own count
  let other = 0;
  const theirs = await createWithin(
    'threads',
    'tenant-b',
    { threads: 5 },
    locks,
    async () => other,
    async () => ok((other += 1)),
  );
  assert.equal(theirs.ok, true);
});
