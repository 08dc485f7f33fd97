// A run's event texts are held by its log as bytes, off V8's heap, from the turn after each was
// published (JsonText.pack, issue 87: kept for seconds after the run, every string of them was
// copied by two of the main thread's scavenges). The readers woken by an event read it as the
// string it came as; every later reader reads the same text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { longStrings } from '../../support/liveHeap.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { InMemoryRunEventLog } from '../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { JsonText } from '../../../src/shared/jsonText.ts';
import type { RunEvent } from '../../../src/domain/agent/runs/runEvent.ts';

const CHARS = 300_000;

/** A long event's text, as a run worker posts it; only the log is given it. */
const eventText = (n: number) => JSON.stringify({ method: 'custom', params: { namespace: [], timestamp: n, data: `${n}`.padEnd(CHARS, 'x') } });

test("a published event's text is read as it came in its turn, held as bytes from the next, and reads back the same", async () => {
  const log = new InMemoryRunEventLog();
  await log.open('r1', 'owner', 't1');
  const live = log.join('r1');
  const first = live.next();
  const before = await longStrings(CHARS);
  log.publish('r1', 'protocol', new JsonText(eventText(1)));
  const read = (await first).value as RunEvent;
  const entry = read.data as JsonText;
  assert.equal(entry.isPacked, false, 'its turn reads the string it came as');
  assert.equal(entry.text, eventText(1));
  await nextTurn();
  assert.equal(entry.isPacked, true);
  assert.equal(await longStrings(CHARS), before, 'no string of its text left on the heap');
  // the run ends; a later reader reads the same text
  log.publish('r1', 'protocol', new JsonText(eventText(2)));
  await log.end('r1');
  await nextTurn();
  const late: string[] = [];
  for await (const e of log.join('r1')) if (e.data instanceof JsonText) late.push(e.data.text);
  assert.deepEqual(late, [eventText(1), eventText(2)]);
  assert.equal(log.finishedHeld, eventText(1).length + eventText(2).length, 'the finished log counted as before, by its texts');
  await live.return(undefined);
});

test('an event published after the end is not kept, nor packed', async () => {
  const log = new InMemoryRunEventLog();
  await log.open('r2', 'owner');
  await log.end('r2');
  const late = new JsonText('{"method":"custom","params":{}}');
  log.publish('r2', 'protocol', late);
  await nextTurn();
  assert.equal(late.isPacked, false);
  const events: RunEvent[] = [];
  for await (const e of log.join('r2')) events.push(e);
  assert.deepEqual(
    events.map((e) => e.event),
    ['end'],
  );
});
