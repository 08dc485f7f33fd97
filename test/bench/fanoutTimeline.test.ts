// The fan-out ceiling plays agentplane's own load (issue 87): each thread's events of the loaded
// window, at their times in it, as the same frames — not one run on a timer for a second.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stamped, template, timelineSize, windowClumps, windowDeliveries } from '../../scripts/bench/fanoutTimeline.ts';
import { runDrivers } from '../../scripts/bench/fanoutDrivers.ts';
import { openSubscribers } from '../../scripts/bench/fanoutSubscribers.ts';

let seq = 0;
const event = (method: string, timestamp: number, data: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'event', event_id: String((seq += 1)), seq, method, params: { namespace: [], timestamp, data } });
/** A run as the bench's echo makes it: running (its creation time, cut to the second), two values, completed. */
const run = (createdMs: number, at: number) => [
  event('lifecycle', Math.floor(createdMs / 1000) * 1000, { event: 'running' }),
  event('values', at, { messages: ['hi'] }),
  event('values', at + 30, { messages: ['hi', 'hi'] }),
  event('lifecycle', at + 40, { event: 'completed' }),
];

const FROM = 1_000_000_500;

test('the window is the thread’s events from the loaded runs’ start on, every one of them', () => {
  const before = run(999_990_000, 999_990_100);
  const window = [...run(FROM + 20, FROM + 100), ...run(FROM + 160, FROM + 200), ...run(FROM + 2_300, FROM + 2_400)];
  const clumps = windowClumps([...before, ...window], FROM);
  assert.equal(timelineSize([clumps]).events, window.length, 'the runs-alone events left out, none of the window’s');
  assert.deepEqual(
    clumps.flatMap((c) => c.events.map((e) => e.seq)),
    window.map((j) => (JSON.parse(j) as { seq: number }).seq),
  );
});

test('a first run’s running, stamped to the second before the window began, is played, at the start', () => {
  const clumps = windowClumps([...run(999_990_000, 999_990_100), ...run(FROM + 20, FROM + 100)], FROM);
  assert.equal(clumps[0]!.events[0]!.method, 'lifecycle');
  assert.equal(clumps[0]!.offsetMs, 0);
  assert.deepEqual(
    clumps.map((c) => c.offsetMs),
    [0, 100, 130, 140],
  );
});

test('each clump at its time in the window, never before the clump before it; same-ms events in one clump', () => {
  // the second run's running reads 1_000_001_000 (its creation's second), 500 ms into the window
  const events = [...run(FROM + 20, FROM + 100), ...run(FROM + 700, FROM + 1_600)];
  const offsets = windowClumps(events, FROM).map((c) => c.offsetMs);
  assert.deepEqual(offsets, [0, 100, 130, 140, 500, 1_600, 1_630, 1_640]);
  const coarse = [...run(FROM + 20, FROM + 100), event('lifecycle', FROM - 500, { event: 'running' }), event('values', FROM + 150)];
  assert.deepEqual(
    windowClumps(coarse, FROM).map((c) => c.offsetMs),
    [0, 100, 130, 140, 140, 150],
    'a running stamped before the last event is played right after it, not before',
  );
  const together = [event('lifecycle', FROM, { event: 'running' }), event('values', FROM + 5), event('messages', FROM + 5), event('values', FROM + 9)];
  assert.deepEqual(
    windowClumps(together, FROM).map((c) => c.events.length),
    [1, 2, 1],
  );
});

test('the frames are agentplane’s text with only the timestamp made when sent', () => {
  const json = event('values', FROM + 7, { messages: [{ content: 'timestamp 1' }] });
  const t = template(json);
  assert.equal(stamped(t, FROM + 7), json);
  assert.equal(stamped(t, 1_700_000_000_123), json.replace(String(FROM + 7), '1700000000123'));
  assert.equal(t.seq, (JSON.parse(json) as { seq: number }).seq);
  assert.equal(t.method, 'values');
});

test('a thread with nothing in the window plays nothing', () => {
  assert.deepEqual(windowClumps(run(999_990_000, 999_990_100), FROM), []);
  assert.deepEqual(timelineSize([[], []]), { events: 0, lastMs: 0 });
});

test('the window’s deliveries: each thread’s events times the subscribers that read it', () => {
  const a = windowClumps(run(FROM + 20, FROM + 100), FROM);
  const b = windowClumps([...run(FROM + 20, FROM + 100), ...run(FROM + 700, FROM + 800)], FROM);
  assert.equal(windowDeliveries([a, b], 5), 3 * 4 + 2 * 8, 'subscribers 0, 2, 4 on the first thread, 1 and 3 on the second');
});

// The phase's target carries `settled` (a function: settledStart.ts) since the idle figures wait
// for the start-up work; given as it was to the drivers' and the subscribers' worker threads, it
// could not be cloned, and the whole fan-out phase of `npm run bench` was "NOT MEASURED".
test("the fan-out's worker threads are given a target whose settled function stays behind", async () => {
  const target = { url: 'http://127.0.0.1:9', headers: {}, assistant: 'a', settled: async () => undefined };
  const drivers = await runDrivers({ target, threads: [] });
  try {
    await drivers.start();
    assert.equal(await drivers.stop(), 0);
  } finally {
    await drivers.close();
  }
  const held = await openSubscribers({ target, threads: [], subscribers: 0 });
  assert.equal(held.opened, 0);
  await held.close();
});
