// PlainSteps (src/domain/agent/graphs/plainSteps.ts): a plain-function run's checkpoint goes on
// the wire (a copy of the thread's whole values) only when the run streams `checkpoints` or
// `debug`; a run that streams neither reads nothing of the values at a checkpoint (issue 87:
// the copy was made at each of a run's two checkpoints and thrown away).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlainSteps } from '../../../../src/domain/agent/graphs/plainSteps.ts';
import { RunStream } from '../../../../src/domain/agent/graphs/runStream.ts';
import type { RunContext } from '../../../../src/domain/agent/graphs/runContext.ts';

/** Values whose `messages` counts its reads: a copy of the values reads it. */
function countedValues() {
  const counted = { reads: 0 };
  const values = {
    get messages() {
      counted.reads += 1;
      return [{ type: 'human', content: 'hi', id: 'm1' }];
    },
  };
  return { values, counted };
}

function steps(modes: string[], envelopes = false) {
  const published: [string, unknown][] = [];
  const publish = (event: string, data: unknown) => void published.push([event, data]);
  const ctx = {
    run: { run_id: 'r1', thread_id: 't1', assistant_id: 'a1' },
    graph: { id: 'echo' },
    publish,
  } as unknown as RunContext;
  return { steps: new PlainSteps(ctx, new RunStream(new Set(modes), publish), envelopes), published };
}

test('a checkpoint is not copied for a run that streams neither checkpoints nor debug', () => {
  for (const [modes, envelopes] of [
    [['values'], false],
    [['values', 'updates', 'messages-tuple', 'custom'], false],
    [['values'], true],
  ] as const) {
    const { steps: s, published } = steps([...modes], envelopes);
    const { values, counted } = countedValues();
    s.checkpoint(values, 'c2', 'c1', { source: 'loop', step: 0 });
    assert.equal(counted.reads, 0, `modes ${modes.join(',')}`);
    // a protocol run's envelope still goes out, and nothing else
    assert.deepEqual(
      published.map(([event]) => event),
      envelopes ? ['checkpoints'] : [],
    );
    if (envelopes) assert.deepEqual(published[0][1], { id: 'c2', parent_id: 'c1', step: 0, source: 'loop' });
  }
});

test('a run that streams checkpoints or debug gets the checkpoint with its values', () => {
  for (const mode of ['checkpoints', 'debug']) {
    const { steps: s, published } = steps([mode]);
    const { values, counted } = countedValues();
    s.checkpoint(values, 'c2', 'c1', { source: 'loop', step: 0 });
    assert.equal(counted.reads, 1, mode);
    assert.equal(published.length, 1);
    const [event, data] = published[0] as [string, Record<string, any>];
    assert.equal(event, mode);
    const checkpoint = mode === 'debug' ? data.payload : data;
    assert.deepEqual(checkpoint.values, { messages: [{ type: 'human', content: 'hi', id: 'm1' }] });
    assert.deepEqual(checkpoint.checkpoint, { thread_id: 't1', checkpoint_id: 'c2', checkpoint_ns: '', checkpoint_map: null });
    assert.deepEqual(checkpoint.parent_checkpoint, { thread_id: 't1', checkpoint_id: 'c1', checkpoint_ns: '', checkpoint_map: null });
  }
});
