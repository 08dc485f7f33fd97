// A tenant's rate (runtime/security/tenantRates.ts): a burst is let in whole, then one request per
// 1/perSecond; a request refused takes nothing and says how long to wait; tenants are apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TenantRates } from '../../../src/runtime/security/tenantRates.ts';

test('a burst goes, the next waits its share of a second; another tenant has its own bucket', () => {
  let now = 0;
  const rates = new TenantRates(10, 10, () => now);
  for (let i = 0; i < 10; i++) assert.equal(rates.take('a'), 0);
  assert.ok(Math.abs(rates.take('a') - 0.1) < 1e-9, 'one request every 0.1 s');
  // a refusal takes nothing: the wait does not grow by asking again
  assert.ok(Math.abs(rates.take('a') - 0.1) < 1e-9);
  assert.equal(rates.take('b'), 0);
  now += 100;
  assert.equal(rates.take('a'), 0);
  assert.ok(rates.take('a') > 0);
  // idle, the bucket fills to its burst and no further
  now += 60_000;
  for (let i = 0; i < 10; i++) assert.equal(rates.take('a'), 0);
  assert.ok(rates.take('a') > 0);
});
