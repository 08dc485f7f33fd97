// One reader per thread (issue 67 point 5): many subscribers of a thread take its events from
// one read of the runs' logs, each at its own position; one behind the feed's window reads the
// logs by itself and comes back to the window; none makes the feed wait or queue for it. Over
// the embedded store in memory and the in-process event log, without a server (the wire is
// test/handlers/agent-server/protocol.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryRunEventLog } from '../../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import type { RunRecord } from '../../../../src/domain/agent/records.ts';
import { uuid7 } from '../../../../src/domain/agent/ids.ts';
import { PROTOCOL_LOG_EVENT, PROTOCOL_RUN_KEY, type EventFilter, type ProtocolEvent } from '../../../../src/domain/agent/protocol/events.ts';
import { SharedThreadRuns } from '../../../../src/domain/agent/protocol/sharedThreadRuns.ts';
import { CollectionRunStore } from '../../../../src/adapters/run-storage/collectionRunStore.ts';
import { ThreadFeeds } from '../../../../src/domain/agent/protocol/threadFeed.ts';

const THREAD = 'thread-1';
const all = new Set(['values', 'lifecycle', 'custom']);
const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));

async function setup(windowEvents?: number, windowBytes?: number) {
  const store = await openJournalStore({ dataDir: null });
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const repository = new CollectionRunStore(store);
  const eventLog = new InMemoryRunEventLog();
  // every entry read from a run's log, by whoever reads it
  let entriesRead = 0;
  const join = eventLog.join.bind(eventLog);
  eventLog.join = async function* (runId, options) {
    for await (const entry of join(runId, options)) {
      entriesRead += 1;
      yield entry;
    }
  };
  const threadRuns = new SharedThreadRuns(repository, eventLog);
  const feeds = new ThreadFeeds({ runs: repository, eventLog, threadRuns }, windowEvents, windowBytes);
  let seq = 0;
  /** A protocol run of `owner` queued on the thread and started; `publish` adds its events (values, then custom every tenth). */
  const run = async (owner = '') => {
    const runId = uuid7();
    const record = { run_id: runId, thread_id: THREAD, status: 'running', kwargs: { [PROTOCOL_RUN_KEY]: true }, metadata: {}, attempt: 1, owner };
    await runs.put(runId, record as unknown as RunRecord);
    await eventLog.open(runId, owner, THREAD);
    eventLog.publish(runId, 'metadata', { run_id: runId, seq_base: seq });
    seq += 1;
    return {
      runId,
      publish: (count: number) => {
        for (let i = 0; i < count; i += 1) {
          seq += 1;
          const method = seq % 10 === 0 ? 'custom' : 'values';
          eventLog.publish(runId, PROTOCOL_LOG_EVENT, { method, params: { namespace: [], timestamp: seq, data: { seq } } });
        }
      },
      end: async () => {
        seq += 1; // the terminal lifecycle the engine would publish
        eventLog.publish(runId, PROTOCOL_LOG_EVENT, { method: 'lifecycle', params: { namespace: [], timestamp: seq, data: { event: 'completed' } } });
        await eventLog.end(runId);
      },
    };
  };
  return { feeds, run, entriesRead: () => entriesRead };
}

/** A subscriber taking events until it has `count`, paused after the first until `pause` settles when asked. */
async function subscribe(
  feeds: ThreadFeeds,
  count: number,
  options: { filter?: Partial<EventFilter>; owner?: string; signal?: AbortSignal; pause?: Promise<unknown> } = {},
): Promise<ProtocolEvent[]> {
  const got: ProtocolEvent[] = [];
  for await (const event of feeds.read(THREAD, options.owner ?? '', { channels: all, ...options.filter }, options.signal)) {
    got.push(event);
    if (got.length === 1 && options.pause) await options.pause;
    if (got.length === count) break;
  }
  return got;
}

const seqs = (events: ProtocolEvent[]) => events.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** A pause the test ends itself (not a time: under load a timed pause says nothing). */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
/** `promise`, or a failure naming `what` if it has not settled within 10 s (a feed that waited for the paused one never does). */
const within = <T>(promise: Promise<T>, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what)), 10_000).unref())]);

describe("a thread's feed", () => {
  it("reads each event of the thread's runs once for all its subscribers, not once per subscriber", async () => {
    const { feeds, run, entriesRead } = await setup();
    const first = await run();
    const readers = Array.from({ length: 50 }, () => subscribe(feeds, 21));
    await tick();
    first.publish(10);
    await tick();
    await first.end();
    const second = await run();
    second.publish(8);
    const got = await Promise.all(readers);
    // the first run: its start (1), 2..11, its end (12); the second: 13, 14..21
    for (const events of got) assert.deepEqual(seqs(events), range(1, 21));
    // one read of the log for all: 12 entries of the first run's log (its end too), 9 of the second's
    assert.ok(entriesRead() <= 25, `${entriesRead()} log entries read for 50 subscribers of 21 events`);
    for (const events of got.slice(1)) events.forEach((event, i) => assert.equal(event, got[0]![i], 'the same event, made once'));
    assert.equal(feeds.reading, 0, 'the feed stops with its last subscriber');
  });

  it('gives each subscriber what its own filter lets through, after its own `since`', async () => {
    const { feeds, run } = await setup();
    const a = await run();
    a.publish(30);
    const custom = subscribe(feeds, 3, { filter: { channels: new Set(['custom']) } });
    const late = subscribe(feeds, 5, { filter: { since: 25 } });
    assert.deepEqual(seqs(await custom), [10, 20, 30]);
    assert.deepEqual(seqs(await late), range(26, 30));
  });

  it('a subscriber asking since before the window reads the logs itself, then takes the window, missing nothing', async () => {
    const { feeds, run } = await setup(4);
    const a = await run();
    const live = subscribe(feeds, 61);
    await tick();
    a.publish(40);
    await tick();
    // the window holds the last 4 of 41 events: a replay from 5 reads the rest from the log
    const replay = subscribe(feeds, 56, { filter: { since: 5 } });
    await tick();
    a.publish(20);
    assert.deepEqual(seqs(await replay), range(6, 61));
    assert.deepEqual(seqs(await live), range(1, 61));
  });

  it('a subscriber too slow for the window falls behind it, reads on from the logs, and the others never wait for it', async () => {
    const { feeds, run } = await setup(4);
    const a = await run();
    const paused = gate();
    const slow = subscribe(feeds, 101, { pause: paused.opened });
    const fast = subscribe(feeds, 101);
    await tick();
    a.publish(100);
    // the slow one stays paused until the fast one has every event: a feed that waited for it never ends
    const quick = await within(fast, 'the fast subscriber did not have every event while the slow one paused');
    paused.open();
    assert.deepEqual(seqs(quick), range(1, 101));
    assert.deepEqual(seqs(await slow), range(1, 101));
  });

  it('keeps a window of large events small in bytes: a subscriber behind it reads the logs, missing nothing', async () => {
    // each event's JSON is ~100 bytes: 300 bytes hold about three
    const { feeds, run, entriesRead } = await setup(256, 300);
    const a = await run();
    const paused = gate();
    const slow = subscribe(feeds, 41, { pause: paused.opened });
    const fast = subscribe(feeds, 41);
    await tick();
    a.publish(40);
    assert.deepEqual(seqs(await within(fast, 'the fast subscriber waited for the paused one')), range(1, 41));
    paused.open();
    assert.deepEqual(seqs(await slow), range(1, 41));
    assert.ok(entriesRead() > 60, `${entriesRead()} log entries read: the slow subscriber read the logs itself`);
  });

  it("an owner's feed holds only that owner's runs", async () => {
    const { feeds, run } = await setup();
    const mine = await run('alice');
    mine.publish(2);
    await mine.end();
    const theirs = await run('bob');
    theirs.publish(2);
    const alice = new AbortController();
    const aliceReads = subscribe(feeds, 10, { owner: 'alice', signal: alice.signal });
    const bob = await subscribe(feeds, 3, { owner: 'bob' });
    await tick();
    alice.abort();
    assert.deepEqual(seqs(await aliceReads), [1, 2, 3, 4]);
    assert.deepEqual(seqs(bob), [5, 6, 7]);
  });

  it('a subscriber waiting for events leaves at once when its signal aborts, and the feed stops with the last', async () => {
    const { feeds, run } = await setup();
    const a = await run();
    a.publish(1);
    const leaving = new AbortController();
    const staying = new AbortController();
    const left = subscribe(feeds, 10, { signal: leaving.signal });
    const stays = subscribe(feeds, 10, { signal: staying.signal });
    await tick();
    leaving.abort();
    // no event comes after the abort: a subscriber that waited for one never leaves
    assert.deepEqual(seqs(await within(left, 'the aborted subscriber did not leave')), [1, 2]);
    assert.equal(feeds.reading, 1);
    a.publish(1);
    await tick();
    staying.abort();
    assert.deepEqual(seqs(await stays), [1, 2, 3]);
    assert.equal(feeds.reading, 0);
  });
});
