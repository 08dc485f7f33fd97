// A tenant's quotas attacked through the API (issue 83: one tenant created ~5,900 threads,
// 4,700 store items and 2,350 crons in 25 s, all 2xx): with low bounds set, each creation one
// over its quota is a 403 whose detail names the quota and its setting, and changes nothing;
// creations sent at once do not pass the bound; another tenant's count is its own; deleting
// makes room again; replacing an item already held is no new item.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { twoTenants, type TwoTenants } from '../support/twoTenants.ts';

let tenants: TwoTenants;
let keyA: string;
let keyB: string;

before(async () => {
  tenants = await twoTenants('agent-server', {
    AGENTPLANE_MAX_THREADS_PER_TENANT: '3',
    AGENTPLANE_MAX_CRONS_PER_TENANT: '2',
    AGENTPLANE_MAX_STORE_ITEMS_PER_TENANT: '3',
    AGENTPLANE_MAX_RUNS_IN_FLIGHT_PER_TENANT: '2',
  });
  ({ keyA, keyB } = tenants);
});
after(() => tenants.app.close());

const send: TwoTenants['send'] = (...args) => tenants.send(...args);
const json = async (res: Response) => (await res.json()) as Record<string, any>;
const count = async (key: string, path: string) => (await json(await send(key, 'POST', path, {}))) as unknown as number;

/** Asserts a 403 naming the setting. */
async function refused(res: Response, setting: string): Promise<void> {
  const body = await json(res);
  assert.equal(res.status, 403, JSON.stringify(body));
  assert.match(body.detail, new RegExp(`Quota reached.*${setting}`));
}

describe('per-tenant quotas', () => {
  it('threads: creating or copying one over AGENTPLANE_MAX_THREADS_PER_TENANT is 403 and stores nothing; at once, no more than the bound', async () => {
    // ten creations at once: three stored, seven refused
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(keyA, 'POST', '/threads', {})));
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 200, 200, 403, 403, 403, 403, 403, 403, 403]);
    await refused(
      answers.find((r) => r.status === 403)!,
      'AGENTPLANE_MAX_THREADS_PER_TENANT',
    );
    const threadId = randomUUID();
    await refused(await send(keyA, 'POST', '/threads', { thread_id: threadId }), 'AGENTPLANE_MAX_THREADS_PER_TENANT');
    assert.equal((await send(keyA, 'GET', `/threads/${threadId}`)).status, 404, 'the refused thread was not stored');
    const [first] = (await json(await send(keyA, 'POST', '/threads/search', { limit: 10 }))) as unknown as { thread_id: string }[];
    await refused(await send(keyA, 'POST', `/threads/${first.thread_id}/copy`), 'AGENTPLANE_MAX_THREADS_PER_TENANT');
    assert.equal(await count(keyA, '/threads/count'), 3);
    // B's count is its own
    assert.equal((await send(keyB, 'POST', '/threads', {})).status, 200);
    // a thread deleted makes room again
    assert.equal((await send(keyA, 'DELETE', `/threads/${first.thread_id}`)).status, 204);
    assert.equal((await send(keyA, 'POST', '/threads', {})).status, 200);
    // a run that would create its thread (if_not_exists) is held to the same quota
    const newThread = randomUUID();
    const run = { assistant_id: 'echo', input: { messages: [] }, if_not_exists: 'create' };
    await refused(await send(keyA, 'POST', `/threads/${newThread}/runs`, run), 'AGENTPLANE_MAX_THREADS_PER_TENANT');
    assert.equal((await send(keyA, 'GET', `/threads/${newThread}`)).status, 404);
    // and so is a stateless run, or a batch, that keeps its thread
    const kept = { assistant_id: 'echo', input: { messages: [] }, on_completion: 'keep' };
    await refused(await send(keyA, 'POST', '/runs', kept), 'AGENTPLANE_MAX_THREADS_PER_TENANT');
    await refused(await send(keyA, 'POST', '/runs/batch', [{ ...kept, on_completion: 'delete' }, kept]), 'AGENTPLANE_MAX_THREADS_PER_TENANT');
    assert.equal(await count(keyA, '/threads/count'), 3);
  });

  it('crons: one over AGENTPLANE_MAX_CRONS_PER_TENANT is 403 and stores nothing', async () => {
    const cron = { assistant_id: 'echo', schedule: '0 0 1 1 *', input: { messages: [] } };
    for (let i = 0; i < 2; i++) assert.equal((await send(keyA, 'POST', '/runs/crons', cron)).status, 200);
    await refused(await send(keyA, 'POST', '/runs/crons', cron), 'AGENTPLANE_MAX_CRONS_PER_TENANT');
    assert.equal(await count(keyA, '/runs/crons/count'), 2);
    assert.equal((await send(keyB, 'POST', '/runs/crons', cron)).status, 200);
  });

  it('store items: a new one over AGENTPLANE_MAX_STORE_ITEMS_PER_TENANT is 403 and stores nothing; one already held may be replaced', async () => {
    const put = (key: string, itemKey: string, value: unknown) => send(key, 'PUT', '/store/items', { namespace: ['notes'], key: itemKey, value: { value } });
    for (const k of ['a', 'b', 'c']) assert.equal((await put(keyA, k, 1)).status, 204);
    await refused(await put(keyA, 'd', 1), 'AGENTPLANE_MAX_STORE_ITEMS_PER_TENANT');
    // (a missing item is answered null, as upstream answers it)
    assert.equal(await (await send(keyA, 'GET', '/store/items?namespace=notes&key=d')).json(), null);
    assert.equal((await put(keyA, 'a', 2)).status, 204, 'an item held already is replaced');
    assert.equal((await put(keyB, 'd', 1)).status, 204);
  });

  it('runs in flight: one over AGENTPLANE_MAX_RUNS_IN_FLIGHT_PER_TENANT is 403 and starts nothing, a batch counts whole; room comes back as runs end', async () => {
    const slow = { assistant_id: 'slow', input: { messages: [{ role: 'user', content: 'hi' }] }, context: { delay_ms: 1_500 } };
    for (let i = 0; i < 2; i++) assert.equal((await send(keyA, 'POST', '/runs', slow)).status, 200);
    await refused(await send(keyA, 'POST', '/runs', slow), 'AGENTPLANE_MAX_RUNS_IN_FLIGHT_PER_TENANT');
    await refused(await send(keyA, 'POST', '/runs/wait', slow), 'AGENTPLANE_MAX_RUNS_IN_FLIGHT_PER_TENANT');
    await refused(await send(keyA, 'POST', '/runs/batch', [slow]), 'AGENTPLANE_MAX_RUNS_IN_FLIGHT_PER_TENANT');
    // B's runs are its own
    assert.equal((await send(keyB, 'POST', '/runs', slow)).status, 200);
    // A's two end: room again
    let again = await send(keyA, 'POST', '/runs', { ...slow, context: { delay_ms: 0 } });
    for (let i = 0; i < 60 && again.status === 403; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await send(keyA, 'POST', '/runs', { ...slow, context: { delay_ms: 0 } });
    }
    assert.equal(again.status, 200);
  });
});
