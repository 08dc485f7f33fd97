// A run's output as the main thread takes it from the worker's `done` (issue 87): end values sent
// with the message are that clone frozen in place, one object the store's frozen copy shares and
// the join answers with; values sent as the run's last `values` event come from that event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runEndOutput } from '../../../src/adapters/run-workers/runEndOutput.ts';
import { frozenCopy } from '../../../src/domain/freeze.ts';
import { JsonText } from '../../../src/shared/jsonText.ts';
import type { RunOutput } from '../../../src/domain/agent/graphs/runContext.ts';

const output = (values: Record<string, unknown>): RunOutput => ({ values, next: [], interrupts: {}, ops: [] });

test("end values posted with the run's end are kept as posted, frozen through and through: the store's frozen copy of the thread shares them", () => {
  const values = {
    messages: [
      { type: 'human', content: 'hi', additional_kwargs: {} },
      { type: 'ai', content: 'hi' },
    ],
    count: 2,
  };
  const posted = output(values);
  const taken = runEndOutput({ type: 'done', runId: 'r', output: posted }, undefined);

  assert.equal(taken.values, values, 'the posted object itself, not a copy');
  assert.ok(Object.isFrozen(values) && Object.isFrozen(values.messages), 'frozen');
  assert.ok(
    values.messages.every((m) => Object.isFrozen(m)),
    'every message frozen',
  );
  assert.ok(Object.isFrozen(values.messages[0]!.additional_kwargs), 'nested parts frozen');
  assert.deepEqual(taken.values, {
    messages: [
      { type: 'human', content: 'hi', additional_kwargs: {} },
      { type: 'ai', content: 'hi' },
    ],
    count: 2,
  });
  // what the embedded store keeps of a thread's record given these values: a copy of the record, its values shared
  const kept = frozenCopy({ thread_id: 't', values: taken.values });
  assert.equal(kept.values, taken.values, "the store's frozen copy holds the same values, not a second copy");
});

test("end values sent as the run's last values event come from that event's text, parsed once and frozen", () => {
  const last = new JsonText('{"messages":[{"type":"ai","content":"from the event"}]}');
  const taken = runEndOutput({ type: 'done', runId: 'r', output: output({}), valuesAsLastEvent: true }, last);
  assert.deepEqual(taken.values, { messages: [{ type: 'ai', content: 'from the event' }] });
  assert.ok(Object.isFrozen(taken.values), 'frozen');
  assert.equal(last.isParsed, false, "the event's own text stays unparsed for its readers");
});
