// Pushed readers of a thread's feed (issue 87): the feed hands each pass's new events to every
// pushed subscriber, those at one position with one filter sharing one batch (made once, written
// as the same bytes), in slices that give the event loop back between them; a subscriber whose
// sink is full is paused where it is and takes up there when resumed, missing nothing, whether
// or not the window moved on meanwhile.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryRunEventLog } from '../../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import type { RunRecord } from '../../../../src/domain/agent/records.ts';
import { uuid7 } from '../../../../src/domain/agent/ids.ts';
import { PROTOCOL_LOG_EVENT, PROTOCOL_RUN_KEY, type ProtocolEvent } from '../../../../src/domain/agent/protocol/events.ts';
import { SharedThreadRuns } from '../../../../src/domain/agent/protocol/sharedThreadRuns.ts';
import { CollectionRunStore } from '../../../../src/adapters/run-storage/collectionRunStore.ts';
import { ThreadFeeds, type FeedSink } from '../../../../src/domain/agent/protocol/threadFeed.ts';
import { PASS_SLICE_MS } from '../../../../src/domain/agent/protocol/fanOutPasses.ts';

const THREAD = 'thread-1';
const all = new Set(['values', 'lifecycle']);
const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** Waits for the condition (checked every few ms), failing after a few seconds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await tick(5);
  }
}

async function setup(windowEvents?: number) {
  const store = await openJournalStore({ dataDir: null });
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const repository = new CollectionRunStore(store);
  const eventLog = new InMemoryRunEventLog();
  const feeds = new ThreadFeeds({ runs: repository, eventLog, threadRuns: new SharedThreadRuns(repository, eventLog) }, windowEvents);
  const runId = uuid7();
  await runs.put(runId, {
    run_id: runId,
    thread_id: THREAD,
    status: 'running',
    kwargs: { [PROTOCOL_RUN_KEY]: true },
    metadata: {},
    attempt: 1,
    owner: '',
  } as never);
  await eventLog.open(runId, '', THREAD);
  eventLog.publish(runId, 'metadata', { run_id: runId, seq_base: 0 });
  let seq = 1;
  const publish = (count: number) => {
    for (let i = 0; i < count; i += 1) {
      seq += 1;
      eventLog.publish(runId, PROTOCOL_LOG_EVENT, { method: 'values', params: { namespace: [], timestamp: seq, data: { seq } } });
    }
  };
  return { feeds, publish };
}

/** A sink recording what it is given; `full` makes it answer that it is full. */
function recorder() {
  const seqs: number[] = [];
  const batches: (readonly ProtocolEvent[])[] = [];
  const sink: FeedSink & { full: boolean } = {
    full: false,
    deliver(events) {
      batches.push(events);
      for (const e of events) seqs.push(e.seq);
      return !sink.full;
    },
    fail: (err) => assert.fail(String(err)),
  };
  return { sink, seqs, batches };
}

describe("a thread's feed, pushing", () => {
  it('gives every subscriber at one place the same batch, each event once and in order', async () => {
    const { feeds, publish } = await setup();
    const subscribers = Array.from({ length: 200 }, () => recorder());
    const pushed = subscribers.map((s) => feeds.read(THREAD, '', { channels: all }).push(s.sink));
    await tick();
    publish(5);
    await until(() => subscribers.every((s) => s.seqs.length === 6), 'the first events');
    publish(3);
    await until(() => subscribers.every((s) => s.seqs.length === 9), 'the next');
    for (const s of subscribers) assert.deepEqual(s.seqs, range(1, 9));
    // the same arrays: made once per pass for all of them, not once per subscriber
    for (const s of subscribers.slice(1))
      s.batches.forEach((batch, i) =>
        assert.equal(batch, subscribers[0]!.batches[i], `batch ${i}: ${batch.map((e) => e.seq)} / ${subscribers[0]!.batches[i]!.map((e) => e.seq)}`),
      );
    for (const p of pushed) p.close();
    assert.equal(feeds.reading, 0);
  });

  it('hands a pass over many subscribers out in slices, the event loop getting turns between them', async () => {
    const { feeds, publish } = await setup();
    let turn = 0;
    const turnsSeen = new Map<number, number>();
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const sinks: FeedSink[] = Array.from({ length: 400 }, () => ({
      deliver() {
        turnsSeen.set(turn, (turnsSeen.get(turn) ?? 0) + 1);
        busy(0.05); // a socket write's cost, about
        return true;
      },
      fail: () => undefined,
    }));
    const pushed = sinks.map((sink) => feeds.read(THREAD, '', { channels: all }).push(sink));
    await tick();
    turnsSeen.clear();
    // another task's turns: a request, say, arriving meanwhile
    let ticking = true;
    const ticker = () => {
      turn += 1;
      if (ticking) setTimeout(ticker, 0);
    };
    setTimeout(ticker, 0);
    publish(1);
    while ([...turnsSeen.values()].reduce((a, b) => a + b, 0) < sinks.length) await tick(5);
    ticking = false;
    // 400 × 0.05 ms = 20 ms of writes: in slices of ~PASS_SLICE_MS, not one turn
    assert.ok(turnsSeen.size >= 4, `the pass took ${turnsSeen.size} turns`);
    const mostInOneTurn = Math.max(...turnsSeen.values());
    assert.ok(mostInOneTurn * 0.05 <= PASS_SLICE_MS * 3, `${mostInOneTurn} subscribers written in one turn`);
    for (const p of pushed) p.close();
  });

  it('pauses a subscriber whose sink is full, gives it nothing until resumed, then everything it missed while the others went on', async () => {
    const { feeds, publish } = await setup(4);
    const slow = recorder();
    const fast = recorder();
    const slowPushed = feeds.read(THREAD, '', { channels: all }).push(slow.sink);
    feeds.read(THREAD, '', { channels: all }).push(fast.sink);
    await tick();
    slow.sink.full = true;
    publish(1);
    await tick();
    assert.deepEqual(slow.seqs, [1, 2], 'its last batch taken, then paused');
    // the window (4 events) moves far past it meanwhile
    publish(30);
    await until(() => fast.seqs.length === 32, 'the fast subscriber to have every event');
    assert.deepEqual(slow.seqs, [1, 2], 'nothing while paused');
    assert.deepEqual(fast.seqs, range(1, 32));
    slow.sink.full = false;
    slowPushed.resume();
    await until(() => slow.seqs.length === 32, 'the slow one to catch up');
    publish(2);
    await until(() => slow.seqs.length === 34 && fast.seqs.length === 34, 'the next events');
    assert.deepEqual(slow.seqs, range(1, 34), 'everything, in order, read from the logs and then the window');
    assert.deepEqual(fast.seqs, range(1, 34));
  });

  it('a subscriber paused while it reads the logs by itself waits there and goes on when resumed', async () => {
    const { feeds, publish } = await setup(4);
    publish(20);
    const late = recorder();
    late.sink.full = true;
    const pushed = feeds.read(THREAD, '', { channels: all, since: 2 }).push(late.sink);
    await until(() => late.seqs.length === 1, 'its first event');
    await tick(30);
    assert.deepEqual(late.seqs, [3], 'one event, then paused');
    late.sink.full = false;
    pushed.resume();
    await until(() => late.seqs.length === 19, 'the rest of the log');
    publish(1);
    await until(() => late.seqs.length === 20, 'the next event');
    assert.deepEqual(late.seqs, range(3, 22));
    pushed.close();
    assert.equal(feeds.reading, 0);
  });
});
