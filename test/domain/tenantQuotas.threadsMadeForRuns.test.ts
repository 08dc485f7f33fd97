// Threads a tenant never creates itself are still its threads, held to
// AGENTPLANE_MAX_THREADS_PER_TENANT (issue 83): a cron without a thread makes a new thread at
// each firing (kept with on_run_completed: keep), and an A2A message naming a new context (a
// free string, or none) makes the thread that context stands for. Without the count, a cron
// firing every second, or a client sending messages with new contexts, held threads past any bound.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { twoTenants, type TwoTenants } from '../support/twoTenants.ts';

const BOUND = 3;
let tenants: TwoTenants;

before(async () => {
  // a cron firing every second: the bound on how often a tenant's cron fires lowered to allow it
  tenants = await twoTenants('a2a', { AGENTPLANE_MAX_THREADS_PER_TENANT: String(BOUND), AGENTPLANE_MIN_CRON_INTERVAL_S: '1' });
});
after(() => tenants.app.close());

const json = async (res: Response) => (await res.json()) as any;
const threadCount = async (key: string) => (await json(await tenants.send(key, 'POST', '/threads/count', {}))) as number;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends an A2A 0.3 message/send to the echo assistant as the tenant of `key`, in `contextId` when given. */
async function a2aSend(key: string, contextId?: string): Promise<any> {
  const message = { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'hi' }], ...(contextId ? { contextId } : {}) };
  const res = await tenants.send(key, 'POST', '/a2a/echo', { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message } });
  assert.equal(res.status, 200);
  return json(res);
}

describe('threads made for runs count against the thread quota', () => {
  it("a cron's firings make no thread past the bound, and B's threads are its own", async () => {
    const { keyA, keyB } = tenants;
    assert.equal((await tenants.send(keyA, 'POST', '/threads', {})).status, 200);
    // every second, on a new thread each time, kept after the run
    const cron = await json(
      await tenants.send(keyA, 'POST', '/runs/crons', {
        assistant_id: 'echo',
        schedule: '* * * * * *',
        input: { messages: [{ role: 'user', content: 'tick' }] },
        on_run_completed: 'keep',
      }),
    );
    assert.ok(cron.cron_id, JSON.stringify(cron));
    // wait for the firings to fill the quota, then for three more firings to be refused
    const deadline = Date.now() + 20_000;
    while ((await threadCount(keyA)) < BOUND && Date.now() < deadline) await sleep(100);
    assert.equal(await threadCount(keyA), BOUND, 'the firings made threads up to the bound');
    const filled = Date.now();
    while (Date.now() - filled < 3_200) {
      assert.ok((await threadCount(keyA)) <= BOUND, 'a firing made a thread past the bound');
      await sleep(200);
    }
    assert.equal((await tenants.send(keyA, 'DELETE', `/runs/crons/${cron.cron_id}`)).status, 204);
    assert.equal(await threadCount(keyA), BOUND);
    assert.equal((await tenants.send(keyB, 'POST', '/threads', {})).status, 200);
  });

  it('an A2A message in a new context is refused naming the quota, and makes no thread', async () => {
    const { keyA, keyB } = tenants;
    assert.equal(await threadCount(keyA), BOUND);
    for (const contextId of [undefined, `conversation-${randomUUID()}`, randomUUID()]) {
      const answer = await a2aSend(keyA, contextId);
      assert.ok(answer.error, `context ${contextId ?? '(none)'} was taken: ${JSON.stringify(answer)}`);
      assert.match(answer.error.message, /Quota reached.*AGENTPLANE_MAX_THREADS_PER_TENANT/);
    }
    assert.equal(await threadCount(keyA), BOUND);
    // a context that already has its thread takes the message
    const [held] = await json(await tenants.send(keyA, 'POST', '/threads/search', { limit: 1 }));
    const answer = await a2aSend(keyA, held.thread_id);
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    // B's count is its own
    assert.equal((await a2aSend(keyB, `conversation-${randomUUID()}`)).error, undefined);
  });
});
