// An idle server gives back the finished runs' logs nothing has read for a while (issue 86: RSS
// back to 1.5x idle within a minute of a burst): the newest finished log, which the count and
// byte budget always keep (the last run of a long thread: its whole last state, ~10 MB after 25
// runs of 400 KB), goes too; a live log stays, and a dropped one reads as unknown (callers
// answer from the store, as for one dropped by count).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryRunEventLog } from '../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { JsonText } from '../../../src/shared/jsonText.ts';

async function finish(eventLog: InMemoryRunEventLog, runId: string, size: number): Promise<void> {
  await eventLog.open(runId, 'owner');
  eventLog.publish(runId, 'values', new JsonText(JSON.stringify({ messages: [{ type: 'ai', content: 'x'.repeat(size) }] })));
  await eventLog.end(runId);
}

/** performance.now() once it has moved past `since`: a time strictly after every log ended before it. */
function after(since: number): number {
  let now = performance.now();
  while (now <= since) now = performance.now();
  return now;
}

test('releaseFinished drops every log that ended before the cut, the newest too, and keeps a live one', async () => {
  const eventLog = new InMemoryRunEventLog();
  await finish(eventLog, 'a', 100_000);
  await finish(eventLog, 'b', 200_000);
  await eventLog.open('live', 'owner');
  eventLog.publish('live', 'values', new JsonText('{"messages":[]}'));
  assert.ok(eventLog.finishedHeld >= 300_000);
  assert.equal(eventLog.releaseFinished(60_000), 0, 'nothing ended a minute ago: nothing dropped');
  assert.equal(await eventLog.has('b'), true);
  const ended = performance.now();
  // unused for 0 ms: everything that ended before now
  after(ended);
  const dropped = eventLog.releaseFinished(0);
  assert.ok(dropped >= 300_000, `the bytes dropped: ${dropped}`);
  assert.equal(eventLog.finishedHeld, 0);
  assert.equal(await eventLog.has('a'), false);
  assert.equal(await eventLog.has('b'), false, 'the newest finished log goes too');
  assert.equal(await eventLog.ownerOf('b'), undefined);
  assert.equal(await eventLog.has('live'), true, 'a run still publishing keeps its log');
  await eventLog.end('live');
  assert.equal(await eventLog.has('live'), true, 'a log that ends after the release is kept as before');
});
