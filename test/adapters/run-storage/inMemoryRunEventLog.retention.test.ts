// The in-memory run event log (inMemoryRunEventLog.ts) keeps finished runs' logs within a count and a byte
// budget, dropping the oldest first: a burst of runs on a long thread, each log holding the
// thread's whole last state, kept hundreds of MB by count alone (issue 67). The newest log
// stays whatever its size, and a dropped log reads as unknown (callers answer from the store).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryRunEventLog } from '../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { JsonText } from '../../../src/shared/jsonText.ts';

/** A run that streamed a `values` event of `size` characters of worker text and ended. */
async function finish(eventLog: InMemoryRunEventLog, runId: string, size: number, options: { parsed?: boolean } = {}) {
  await eventLog.open(runId, 'owner');
  const values = new JsonText(JSON.stringify({ messages: [{ type: 'ai', content: 'x'.repeat(size - 30) }] }));
  eventLog.publish(runId, 'metadata', { run_id: runId });
  eventLog.publish(runId, 'values', values);
  if (options.parsed) eventLog.setResult(runId, values.value);
  await eventLog.end(runId);
}

async function eventsOf(eventLog: InMemoryRunEventLog, runId: string) {
  const out = [];
  for await (const e of eventLog.join(runId)) out.push(e.event);
  return out;
}

describe('finished run logs', () => {
  it('keeps finished logs within the byte budget, dropping the oldest first', async () => {
    const eventLog = new InMemoryRunEventLog(200, 10_000);
    for (const id of ['a', 'b', 'c', 'd']) await finish(eventLog, id, 3_000);
    // 4 × ~3,000 bytes > 10,000: the oldest goes, the three newest stay whole
    assert.equal(await eventLog.has('a'), false);
    assert.equal(await eventLog.ownerOf('a'), undefined);
    assert.deepEqual(await eventsOf(eventLog, 'a'), []);
    for (const id of ['b', 'c', 'd']) {
      assert.equal(await eventLog.has(id), true);
      assert.deepEqual(await eventsOf(eventLog, id), ['metadata', 'values', 'end']);
    }
  });

  it('counts a parsed answer beside its text', async () => {
    const eventLog = new InMemoryRunEventLog(200, 10_000);
    for (const id of ['a', 'b', 'c']) await finish(eventLog, id, 3_000, { parsed: true });
    // each holds ~6,000 bytes (text and parse): only the newest fits
    assert.deepEqual([await eventLog.has('a'), await eventLog.has('b'), await eventLog.has('c')], [false, false, true]);
    assert.ok(await eventLog.result('c'));
  });

  it('keeps the newest log even when it alone is over the budget', async () => {
    const eventLog = new InMemoryRunEventLog(200, 1_000);
    await finish(eventLog, 'a', 5_000);
    await finish(eventLog, 'b', 5_000);
    assert.equal(await eventLog.has('a'), false);
    assert.equal(await eventLog.has('b'), true);
    assert.deepEqual(await eventsOf(eventLog, 'b'), ['metadata', 'values', 'end']);
  });

  it('still keeps at most the counted number of logs', async () => {
    const eventLog = new InMemoryRunEventLog(2, 1_000_000);
    for (const id of ['a', 'b', 'c']) await finish(eventLog, id, 100);
    assert.deepEqual([await eventLog.has('a'), await eventLog.has('b'), await eventLog.has('c')], [false, true, true]);
  });

  it('leaves running logs alone', async () => {
    const eventLog = new InMemoryRunEventLog(200, 1_000);
    await eventLog.open('live', 'owner');
    eventLog.publish('live', 'values', new JsonText(JSON.stringify('x'.repeat(5_000))));
    await finish(eventLog, 'a', 5_000);
    await finish(eventLog, 'b', 5_000);
    assert.equal(await eventLog.has('live'), true);
  });
});
