// A finished run's join answer is kept as the bytes of its JSON once the readers waiting for the
// run's end have had it (keptResult.ts, issue 87): as objects it lived as long as the log, through
// the main thread's scavenges. A later join still answers it, equal to what was set.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { InMemoryRunEventLog } from '../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { JsonText } from '../../../src/shared/jsonText.ts';
import { liveHeapUsed } from '../../support/liveHeap.ts';

const answer = () => ({ messages: Array.from({ length: 20 }, (_, i) => ({ type: i % 2 ? 'ai' : 'human', content: `message ${i}`, id: `m${i}` })) });

/** Ends the run with `result` set, as runEndRecord.ts does (the log ended first, the answer set after). */
async function finish(log: InMemoryRunEventLog, runId: string, result: unknown): Promise<void> {
  await log.open(runId, 'owner');
  log.publish(runId, 'metadata', { run_id: runId });
  await log.end(runId);
  log.setResult(runId, result);
}

describe("a finished run's join answer", () => {
  it('is let go as objects at the next turn when no reader waits for the end, and still answered', async () => {
    const log = new InMemoryRunEventLog();
    let result: object | undefined = answer();
    const weak = new WeakRef(result);
    await finish(log, 'r1', result);
    result = undefined;
    await nextTurn();
    liveHeapUsed();
    assert.equal(weak.deref(), undefined, 'the objects set as the answer are no longer held');
    const read = await log.result('r1');
    assert.deepEqual(read, answer());
    assert.notEqual(await log.result('r1'), read, 'each read parses its own');
  });

  it('is the object set for the reader that waited for the end, and bytes once it has read it', async () => {
    const log = new InMemoryRunEventLog();
    await log.open('r2', 'owner');
    const waited = log.ended('r2');
    const result = answer();
    await log.end('r2');
    log.setResult('r2', result);
    await nextTurn();
    await waited;
    assert.equal(await log.result('r2'), result, 'not kept as bytes before it is read');
    await nextTurn();
    const read = await log.result('r2');
    assert.notEqual(read, result, 'then kept as bytes');
    assert.deepEqual(read, result);
  });

  it("is not copied when it is the parse of the log's last `values` event, which the log keeps", async () => {
    const log = new InMemoryRunEventLog();
    await log.open('r3', 'owner');
    const values = new JsonText(JSON.stringify(answer()));
    log.publish('r3', 'values', values);
    await log.end('r3');
    log.setResult('r3', values.value);
    await nextTurn();
    assert.equal(await log.result('r3'), values.value);
  });

  it('keeps an answer whose JSON cannot be written as it is', async () => {
    const log = new InMemoryRunEventLog();
    const result = { big: 1n };
    await finish(log, 'r4', result);
    await nextTurn();
    assert.equal(await log.result('r4'), result);
  });
});
