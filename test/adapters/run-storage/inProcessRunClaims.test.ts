// The in-process run queue (the embedded store's RunClaims) over a store in memory: receipt
// order per thread, one run at a time per thread, `after_seconds`, runs withdrawn while queued,
// a new attempt first in its line, recovery after a restart, and a claim's end written only
// through that claim.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InProcessRunClaims } from '../../../src/adapters/run-storage/inProcessRunClaims.ts';
import type { RunRecord } from '../../../src/domain/agent/records.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { InMemoryRunEventLog } from '../../../src/adapters/run-storage/inMemoryRunEventLog.ts';

const running = { status: 'running' as const, updated_at: new Date().toISOString() };

async function queue() {
  const store = await openJournalStore({ dataDir: null });
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const events = new InMemoryRunEventLog();
  const claims = new InProcessRunClaims(runs, store, events);
  const add = async (thread: string, extra: Partial<RunRecord> = {}, options: { queue?: boolean } = {}) => {
    const run = pendingRun(uuid7(), thread, extra);
    if (options.queue === false) await runs.put(run.run_id, run);
    else await claims.enqueue([{ collection: 'runs', id: run.run_id, value: run }], run, '');
    return run;
  };
  const claimOne = async (skip?: ReadonlySet<string>) => (await claims.claim(running, 1, skip)).claims[0] ?? null;
  const claimId = async () => (await claimOne())?.run.run_id ?? null;
  return { runs, claims, events, add, claimId, claimOne };
}

describe('in-process run claims', () => {
  it('enqueue stores the run, opens its log for its owner, and wakes this server only for a thread with nothing before the run', async () => {
    const q = await queue();
    const first = pendingRun(uuid7(), 't1');
    const behind = pendingRun(uuid7(), 't1');
    const thread = { collection: 'threads', id: 't1', value: { thread_id: 't1', status: 'busy' } };
    assert.deepEqual(await q.claims.enqueue([thread, { collection: 'runs', id: first.run_id, value: first }], first, 'tenant-a'), { woke: true });
    assert.deepEqual(await q.claims.enqueue([thread, { collection: 'runs', id: behind.run_id, value: behind }], behind, 'tenant-a'), { woke: false });
    assert.equal((await q.runs.get(first.run_id))?.status, 'pending', 'the run is stored');
    assert.equal(await q.events.ownerOf(first.run_id), 'tenant-a', "the run's log is open for its owner");
    assert.equal(await q.claimId(), first.run_id);
    assert.equal(await q.claimId(), null, 'the run behind it waits for its end');
  });

  it('takes the oldest run of a thread with nothing running; a thread waits for its running run', async () => {
    const q = await queue();
    const a = await q.add('t1');
    const b = await q.add('t2');
    const c = await q.add('t1');
    const claimA = (await q.claimOne())!;
    assert.equal(claimA.run.run_id, a.run_id);
    assert.equal(await q.claimId(), b.run_id);
    assert.equal(await q.claimId(), null, 't1 is busy with a');
    assert.equal((await q.runs.get(a.run_id))?.status, 'running');
    await q.claims.release(claimA, { ...a, status: 'success' });
    assert.equal(await q.claimId(), c.run_id);
  });

  it("shares slots fairly between owners: another owner's run goes before the rest of a long queue, each owner's in receipt order", async () => {
    const q = await queue();
    const a = [];
    for (let i = 0; i < 5; i++) a.push(await q.add(`a${i}`, { owner: 'tenant-a' }));
    const b = await q.add('b0', { owner: 'tenant-b' });
    const b2 = await q.add('b1', { owner: 'tenant-b' });
    // two slots: one for each owner, then each turn to the owner with fewer executing
    const first = (await q.claims.claim(running, 2)).claims.map((c) => c.run.run_id);
    assert.deepEqual(first, [a[0].run_id, b.run_id]);
    assert.equal(await q.claimId(), a[1].run_id, 'even (one each): the oldest');
    assert.equal(await q.claimId(), b2.run_id, 'b has fewer executing');
    assert.deepEqual(
      (await q.claims.claim(running, 5)).claims.map((c) => c.run.run_id),
      [a[2].run_id, a[3].run_id, a[4].run_id],
    );
  });

  it("holds an owner's runs to its share of the slots: another owner's run, behind its queue, takes a slot it may not (issue 83)", async () => {
    const q = await queue();
    const a = [];
    for (let i = 0; i < 5; i++) a.push(await q.add(`a${i}`, { owner: 'tenant-a' }));
    const perOwner = 2;
    const taken = async () => (await q.claims.claim(running, 5, undefined, perOwner)).claims.map((c) => c.run.run_id);
    assert.deepEqual(await taken(), [a[0].run_id, a[1].run_id]);
    assert.deepEqual(await taken(), [], 'A holds its share');
    const b = await q.add('b0', { owner: 'tenant-b' });
    assert.deepEqual(await taken(), [b.run_id]);
  });

  it('finds the fair order once a claim: a claim of several slots reads each waiting run once, not once per run it takes (issue 83)', async () => {
    // a tenant's flood holds up to 1,000 runs in flight (AGENTPLANE_MAX_RUNS_IN_FLIGHT_PER_TENANT),
    // each stateless run on a thread of its own, and its runs that end together free 10 slots at
    // once: read and sorted again for each run taken, the claim of those 10 took ~2 ms of the loop
    const q = await queue();
    const a = [];
    for (let i = 0; i < 300; i++) a.push(await q.add(`a${i}`, { owner: 'tenant-a' }));
    const b = await q.add('b0', { owner: 'tenant-b' });
    // the claim asks `skip` about each waiting run it reads
    class CountedSkip extends Set<string> {
      asked = 0;
      override has(value: string): boolean {
        this.asked += 1;
        return super.has(value);
      }
    }
    const skip = new CountedSkip();
    const taken = (await q.claims.claim(running, 10, skip)).claims.map((c) => c.run.run_id);
    // the fair share as before: B's one run goes second, A's in receipt order around it
    assert.deepEqual(taken, [a[0].run_id, b.run_id, ...a.slice(1, 9).map((r) => r.run_id)]);
    assert.ok(skip.asked <= 301, `the claim read the waiting runs ${skip.asked} times for 301 runs waiting (one read each is enough)`);
  });

  it('finds the order again when a run it was to take was withdrawn meanwhile, and takes the next', async () => {
    const q = await queue();
    const a = await q.add('t1');
    const behind = await q.add('t1');
    const other = await q.add('t2');
    await q.runs.put(a.run_id, { ...a, status: 'interrupted' });
    const taken = (await q.claims.claim(running, 2)).claims.map((c) => c.run.run_id);
    assert.deepEqual(taken.sort(), [behind.run_id, other.run_id].sort());
  });

  it('skips a run withdrawn while it waited (its record is no longer pending)', async () => {
    const q = await queue();
    const a = await q.add('t1');
    const b = await q.add('t1');
    await q.runs.put(a.run_id, { ...a, status: 'interrupted' });
    assert.equal(await q.claimId(), b.run_id);
  });

  it("names a thread's next run to start ahead only while no other thread's run waits for a claim (issue 86)", async () => {
    const q = await queue();
    const a1 = await q.add('t1');
    const a2 = await q.add('t1');
    assert.equal(await q.claimId(), a1.run_id);
    // t1 alone: its next run is the one claimed as soon as a1 ends
    assert.equal((await q.claims.nextOnThread('t1'))?.run_id, a2.run_id);
    // another thread's run waits for a claim: t1's next would wait its turn behind it
    const b1 = await q.add('t2');
    assert.equal(await q.claims.nextOnThread('t1'), null);
    // claimed, it waits no more
    assert.equal(await q.claimId(), b1.run_id);
    assert.equal((await q.claims.nextOnThread('t1'))?.run_id, a2.run_id);
    // one held back by its after_seconds does not wait for a claim yet
    await q.add('t3', { kwargs: { after_seconds: 60 } });
    assert.equal((await q.claims.nextOnThread('t1'))?.run_id, a2.run_id);
  });

  it('holds a run back until its after_seconds have passed, and says when', async () => {
    const q = await queue();
    const later = await q.add('t1', { kwargs: { after_seconds: 60 } });
    const now = await q.add('t2');
    assert.equal(await q.claimId(), now.run_id);
    const none = await q.claims.claim(running, 1);
    assert.deepEqual(none.claims, []);
    assert.equal(none.due, Date.parse(later.created_at) + 60_000);
  });

  it('says when the earliest run held back may start, reading the clock as often whatever the number of threads waiting', async () => {
    const readsWith = async (threads: number) => {
      const q = await queue();
      for (let i = 0; i < threads; i += 1) await q.add(`t${i}`, { kwargs: { after_seconds: 60 + i } });
      const first = await q.add('first', { kwargs: { after_seconds: 30 } });
      const realNow = Date.now;
      let reads = 0;
      Date.now = () => ((reads += 1), realNow());
      try {
        const none = await q.claims.claim(running, 1);
        assert.deepEqual(none.claims, []);
        assert.equal(none.due, Date.parse(first.created_at) + 30_000);
      } finally {
        Date.now = realNow;
      }
      return reads;
    };
    assert.equal(await readsWith(30), await readsWith(3));
  });

  it('puts a new attempt back first in its thread’s line', async () => {
    const q = await queue();
    const a = await q.add('t1');
    await q.add('t1');
    const first = (await q.claimOne())!;
    assert.equal(first.run.run_id, a.run_id);
    const again = { ...a, status: 'pending' as const, attempt: 2 };
    assert.equal(await q.claims.recordEnd(first, [{ collection: q.runs.name, id: a.run_id, value: again }]), true);
    await q.claims.release(first, again);
    assert.equal(await q.claimId(), a.run_id);
    assert.equal((await q.runs.get(a.run_id))?.attempt, 2);
  });

  it("writes a run's end only through the claim that holds it, and skips the runs it is told to", async () => {
    const q = await queue();
    const a = await q.add('t1');
    assert.equal((await q.claimOne(new Set([a.run_id])))?.run.run_id, undefined, 'a run still stopping here is not taken');
    const claim = (await q.claimOne())!;
    const ended = { ...claim.run, status: 'success' as const };
    const stale = { ...claim, token: 'another claim' };
    assert.equal(await q.claims.recordEnd(stale, [{ collection: q.runs.name, id: a.run_id, value: ended }]), false);
    await q.claims.release(stale, ended);
    assert.equal((await q.runs.get(a.run_id))?.status, 'running', 'nothing written through a claim that is not the holder');
    assert.equal(await q.claimId(), null, 'and the thread is still held');
    assert.equal(await q.claims.recordEnd(claim, [{ collection: q.runs.name, id: a.run_id, value: ended }]), true);
    assert.equal((await q.runs.get(a.run_id))?.status, 'success');
  });

  it('recovers once: runs left running are abandoned, pending ones queued again in receipt order', async () => {
    const q = await queue();
    const left = await q.add('t1', { status: 'running' }, { queue: false });
    const first = await q.add('t2', {}, { queue: false });
    const second = await q.add('t2', {}, { queue: false });
    const recovered = await q.claims.recover((run) => ({ ...run, status: 'pending', attempt: run.attempt + 1 }));
    assert.deepEqual(
      recovered.abandoned.map((r) => [r.run_id, r.status, r.attempt]),
      [[left.run_id, 'pending', 2]],
    );
    assert.deepEqual(
      recovered.queued.map((r) => r.run_id),
      [left.run_id, first.run_id, second.run_id],
    );
    assert.deepEqual(await q.claims.recover((run) => run), { abandoned: [], queued: [] }, 'the previous process is recovered once');
    assert.equal(await q.claimId(), left.run_id);
    assert.equal(await q.claimId(), first.run_id);
    assert.equal(await q.claimId(), null);
  });

  it('hands a cancel to whoever listens (the engine executing the run)', async () => {
    const q = await queue();
    const heard: [string, string][] = [];
    const stop = q.claims.onCancel((runId, action) => heard.push([runId, action]));
    await q.claims.requestCancel('r1', 'rollback');
    stop();
    await q.claims.requestCancel('r2', 'interrupt');
    assert.deepEqual(heard, [['r1', 'rollback']]);
  });
});
