// Many readers of one thread's protocol events (issue 57's fan-out): they share one listing of
// the thread's runs per change instead of each listing them again at every run, wait for the
// next run on that listing's one registration, and each event is made and serialised once for
// all of them. Over the embedded store in memory and the in-process event log, without a
// server (the wire is test/handlers/agent-server/protocol.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { InMemoryRunEventLog } from '../../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import type { RunRecord } from '../../../../src/domain/agent/records.ts';
import { uuid7 } from '../../../../src/domain/agent/ids.ts';
import { eventJson, PROTOCOL_LOG_EVENT, PROTOCOL_RUN_KEY, type ProtocolEvent } from '../../../../src/domain/agent/protocol/events.ts';
import { threadProtocolEvents } from '../../../../src/domain/agent/protocol/threadEvents.ts';
import { SharedThreadRuns } from '../../../../src/domain/agent/protocol/sharedThreadRuns.ts';
import { CollectionRunStore } from '../../../../src/adapters/run-storage/collectionRunStore.ts';

const READERS = 50;
const THREAD = 'thread-1';
const channels = new Set(['values']);

async function setup() {
  const store = await openJournalStore({ dataDir: null });
  const collection = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const repository = new CollectionRunStore(store);
  let lists = 0;
  // the real repository, its listings of a thread's runs counted
  let recordsRead = 0;
  const runs = {
    onThread: async (threadId: string) => {
      lists += 1;
      const all = await repository.onThread(threadId);
      recordsRead += all.length;
      return all;
    },
    idsOnThread: (threadId: string) => ((lists += 1), repository.idsOnThread(threadId)),
    get: (runId: string) => ((recordsRead += 1), repository.get(runId)),
  };
  const eventLog = new InMemoryRunEventLog();
  let waits = 0;
  const nextRunOn = eventLog.nextRunOn.bind(eventLog);
  eventLog.nextRunOn = (threadId, signal) => ((waits += 1), nextRunOn(threadId, signal));
  const deps = { runs, eventLog, threadRuns: new SharedThreadRuns(runs, eventLog) };
  let seq = 0;
  const ends = new Map<string, { base: number; end: number }>();
  /** A protocol run queued on the thread, with `events` values events (after its start), left running. */
  const run = async (events: number) => {
    const runId = uuid7();
    const record = { run_id: runId, thread_id: THREAD, status: 'running', kwargs: { [PROTOCOL_RUN_KEY]: true }, metadata: {}, attempt: 1 };
    await collection.put(runId, record as unknown as RunRecord);
    await eventLog.open(runId, '', THREAD);
    eventLog.publish(runId, 'metadata', { run_id: runId, seq_base: seq });
    for (let i = 0; i < events; i += 1) eventLog.publish(runId, PROTOCOL_LOG_EVENT, { method: 'values', params: { namespace: [], timestamp: i, data: { i } } });
    ends.set(runId, { base: seq, end: seq + events + 1 });
    seq += events + 1;
    return runId;
  };
  /** The run's end as its record keeps it: its numbers on the thread (its last event's is the next run's base). */
  const finish = async (runId: string) => {
    const record = (await collection.get(runId))!;
    await collection.put(runId, { ...record, status: 'success', protocol_seq: ends.get(runId)! } as RunRecord);
    await eventLog.end(runId);
  };
  return { deps, eventLog, run, finish, collection, lists: () => lists, waits: () => waits, recordsRead: () => recordsRead };
}

/** A reader taking `count` events of the thread's stream, then leaving. */
async function read(deps: Parameters<typeof threadProtocolEvents>[0], count: number, signal?: AbortSignal): Promise<ProtocolEvent[]> {
  const got: ProtocolEvent[] = [];
  for await (const event of threadProtocolEvents(deps, THREAD, { channels }, { owner: '', signal })) {
    got.push(event);
    if (got.length === count) break;
  }
  return got;
}

describe("a thread's protocol events with many readers", () => {
  it("lists the thread's runs, and waits for its next run, once per run for all its readers, not once per reader", async () => {
    const { deps, eventLog, run, lists, waits } = await setup();
    const first = await run(3);
    const readers = Array.from({ length: READERS }, () => read(deps, 6));
    // every reader has read the first run and waits for the next
    await new Promise((resolve) => setTimeout(resolve, 50));
    await eventLog.end(first);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const before = lists();
    await run(3);
    const got = await Promise.all(readers);
    for (const events of got)
      assert.deepEqual(
        events.map((e) => e.seq),
        [2, 3, 4, 6, 7, 8],
      );
    assert.ok(before <= 2, `${before} listings for ${READERS} readers of one run`);
    assert.ok(lists() - before <= 2, `${lists() - before} listings for ${READERS} readers woken by a run`);
    // one registration with the event log per listing, not an AbortSignal per reader per run (issue 67)
    assert.ok(waits() <= 4, `${waits()} registrations for the next run for ${READERS} readers of two runs`);
  });

  it('makes each event once, and its JSON once, for all the readers', async () => {
    const { deps, run } = await setup();
    await run(4);
    const got = await Promise.all(Array.from({ length: READERS }, () => read(deps, 4)));
    for (const events of got.slice(1)) events.forEach((event, i) => assert.equal(event, got[0]![i], 'the same event object'));
    const stringify = JSON.stringify;
    let made = 0;
    JSON.stringify = ((...args: Parameters<typeof stringify>) => ((made += 1), stringify(...args))) as typeof stringify;
    let texts: string[][];
    try {
      texts = got.map((events) => events.map(eventJson));
    } finally {
      JSON.stringify = stringify;
    }
    assert.equal(made, 4, `${made} serialisations of 4 events for ${READERS} readers`);
    assert.deepEqual(JSON.parse(texts[READERS - 1]![3]!), {
      type: 'event',
      event_id: '5',
      seq: 5,
      method: 'values',
      params: { namespace: [], timestamp: 3, data: { i: 3 } },
    });
  });

  it('a reader waiting for the next run ends at once when it leaves, and the others read on', async () => {
    const { deps, eventLog, run } = await setup();
    const first = await run(2);
    await eventLog.end(first);
    const leaving = new AbortController();
    const left = read(deps, 10, leaving.signal);
    const staying = read(deps, 3);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const began = Date.now();
    leaving.abort();
    assert.deepEqual(
      (await left).map((e) => e.seq),
      [2, 3],
    );
    assert.ok(Date.now() - began < 1_000, 'left without waiting for a run');
    await run(1);
    assert.deepEqual(
      (await staying).map((e) => e.seq),
      [2, 3, 5],
    );
  });

  it("keeps no listener on a reader's signal for the runs it has read", async () => {
    const { deps, eventLog, run } = await setup();
    for (let i = 0; i < 5; i += 1) await eventLog.end(await run(1));
    const leaving = new AbortController();
    const reading = read(deps, 6, leaving.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    // the reader's own, and at most the one of the read waiting now
    const listeners = getEventListeners(leaving.signal, 'abort').length;
    leaving.abort();
    assert.deepEqual(
      (await reading).map((e) => e.seq),
      [2, 4, 6, 8, 10],
    );
    assert.ok(listeners <= 2, `${listeners} abort listeners on a reader of 5 runs`);
  });

  it("lists a thread's runs again from what it knew: the new runs and the unfinished read, not every record at every run (issue 87)", async () => {
    const { deps, run, finish, collection, recordsRead } = await setup();
    for (let i = 0; i < 10; i += 1) await finish(await run(1));
    // a run that is not a protocol run: listed once, left out
    await collection.put('0-not-protocol', {
      run_id: '0-not-protocol',
      thread_id: THREAD,
      status: 'success',
      kwargs: {},
      metadata: {},
    } as unknown as RunRecord);
    const leaving = new AbortController();
    const reading = read(deps, 15, leaving.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const before = recordsRead();
    for (let i = 0; i < 5; i += 1) {
      const next = await run(1);
      await new Promise((resolve) => setTimeout(resolve, 10));
      await finish(next);
    }
    const got = await reading;
    assert.deepEqual(
      got.map((e) => e.seq),
      Array.from({ length: 15 }, (_, i) => 2 * i + 2),
    );
    // each new run read when it is queued, and once more while it was unfinished at the last listing
    assert.ok(recordsRead() - before <= 10, `${recordsRead() - before} run records read for 5 runs on a thread of 16`);
  });

  it('a run deleted since the last listing is left out of the next, and a finished one is read with its numbers', async () => {
    const { deps, run, finish, collection } = await setup();
    const runs: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      runs.push(await run(1));
      await finish(runs[i]!);
    }
    const leaving = new AbortController();
    const staying = read(deps, 10, leaving.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await collection.delete(runs[1]!);
    const last = await run(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // a reader from the start, sharing the listing made after the deletion
    const late = await read(deps, 3);
    assert.deepEqual(
      late.map((e) => e.seq),
      [2, 6, 8],
    );
    await finish(last);
    leaving.abort();
    assert.deepEqual(
      (await staying).map((e) => e.seq),
      [2, 4, 6, 8],
    );
  });
});
