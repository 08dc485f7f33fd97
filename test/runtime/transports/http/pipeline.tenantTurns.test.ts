// A tenant's request that waits its turn (tenantTurns.ts) and whose client goes meanwhile ends
// its hold on the tenant's count all the same (bf4a6a20). The pipeline's one 'close' listener
// ends a request's hold; a request whose client went while it waited its turn had no hold yet
// when that listener ran, and took one after: without the check that ends it at once, the
// tenant's count stayed one higher for good, and its next two requests at once no longer both
// went in at once. The turns are given by hand here (the wait is one loop turn on the server).
// A public operation (the health check) sent with a tenant's key takes none of its turns (issue 87).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { handlerRegistry } from '../../../../src/runtime/handler.ts';
import { TenantTurns } from '../../../../src/runtime/transports/http/tenantTurns.ts';
import { until } from '../../../support/until.ts';
import { agentServerPipeline } from '../../../support/agentServerPipeline.ts';

test("a request whose client goes while it waits its tenant's turn leaves the tenant's count as it found it", async () => {
  /** The turns asked for, each given when the test calls it. */
  const asked: (() => void)[] = [];
  const turns = new TenantTurns(() => new Promise((resolve) => asked.push(resolve)));
  let handled = 0;
  let openGate!: () => void;
  let gate = new Promise<void>((resolve) => (openGate = resolve));
  const closed: number[] = [];
  const key = `key-${randomUUID()}`;
  const fetchIn = agentServerPipeline(key, {
    // each request is held until the test opens the gate, as a request waiting for a run is
    handlers: handlerRegistry({
      getThread: async () => {
        handled += 1;
        await gate;
        return { status: 404, body: { detail: 'Thread not found' } };
      },
    }),
    observe: (answered) => closed.push(answered.status),
    tenantTurns: turns,
  });
  const get = (signal?: AbortSignal) =>
    fetchIn(new Request(`http://in.process/threads/${randomUUID()}`, { headers: { 'x-api-key': key }, signal })).then(
      (res) => res.text().then(() => res.status),
      () => 'gone' as const,
    );

  // two of the tenant's requests at once go in at once; the third waits its turn
  const held = [get(), get()];
  await until('the two handled', () => handled === 2);
  const client = new AbortController();
  const third = get(client.signal);
  await until('the third waiting its turn', () => asked.length === 1);
  assert.equal(handled, 2, 'not handled before its turn');
  // its client goes while it waits; then its turn comes
  client.abort();
  await until("the third's response closed", () => closed.length === 1);
  asked[0]();
  await until('the third handled after its turn', () => handled === 3);
  openGate();
  assert.deepEqual(await Promise.all(held), [404, 404]);
  assert.equal(await third, 'gone');
  await until('every response closed', () => closed.length === 3);

  // the tenant holds nothing now: two requests at once both go in without a turn, as before
  gate = new Promise<void>((resolve) => (openGate = resolve));
  const again = [get(), get()];
  await until('both handled', () => handled === 5 || asked.length > 1);
  assert.equal(asked.length, 1, "the tenant's count stayed raised: the second of two waited a turn");
  openGate();
  assert.deepEqual(await Promise.all(again), [404, 404]);
});

test("a public operation called with a tenant's key is answered at once, not behind the tenant's turns", async () => {
  const asked: (() => void)[] = [];
  const turns = new TenantTurns(() => new Promise((resolve) => asked.push(resolve)));
  let handled = 0;
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  const key = `key-${randomUUID()}`;
  const fetchIn = agentServerPipeline(key, {
    handlers: handlerRegistry({
      getThread: async () => {
        handled += 1;
        await gate;
        return { status: 404, body: { detail: 'Thread not found' } };
      },
      health: async () => ({ status: 200, body: { ok: true } }),
    }),
    tenantTurns: turns,
  });
  const headers = { 'x-api-key': key };
  const get = (path: string) => fetchIn(new Request(`http://in.process${path}`, { headers })).then((res) => res.text().then(() => res.status));

  // the tenant has two requests under way (a client's joins waiting for their runs)
  const held = [get(`/threads/${randomUUID()}`), get(`/threads/${randomUUID()}`)];
  await until('the two handled', () => handled === 2);
  // the health check, sent with the key as with none: answered with no turn asked
  let ok: number | undefined;
  void get('/ok').then((status) => (ok = status));
  await until('the health check answered, or waiting for a turn', () => ok !== undefined || asked.length > 0);
  assert.equal(asked.length, 0, "the health check waited for the tenant's turn");
  assert.equal(ok, 200);
  // the tenant's own third request still waits its turn (issue 83)
  const third = get(`/threads/${randomUUID()}`);
  await until('the third waiting its turn', () => asked.length === 1);
  asked[0]!();
  openGate();
  assert.deepEqual(await Promise.all([...held, third]), [404, 404, 404]);
});
