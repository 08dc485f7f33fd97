// RunStream (src/domain/agent/graphs/runStream.ts): the values a run ends with go out as the run's
// last `values` event went when they are that very state, and are serialised afresh when
// anything in them differs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { RunStream } from '../../../../src/domain/agent/graphs/runStream.ts';
import { serialiseValues } from '../../../../src/domain/agent/messages/messages.ts';
import { JsonText } from '../../../../src/shared/jsonText.ts';

test('the end state of a run reuses its last values event only when it is the same state', () => {
  const published: [string, unknown][] = [];
  const stream = new RunStream(new Set(['values']), (event, data) => published.push([event, data]));
  const messages = [new HumanMessage({ content: 'hi', id: 'm1' }), new AIMessage({ content: 'hello', id: 'm2' })];
  stream.chunk([], 'values', { messages, step: 1 });
  const [[event, sent]] = published;
  assert.equal(event, 'values');

  // the same objects under the same keys: what was sent
  assert.equal(stream.wireValues({ messages, step: 1 }), sent);
  // a key more, a key less, or another value: serialised afresh, with what differs
  const more = stream.wireValues({ messages, step: 1, extra: true }) as Record<string, unknown>;
  assert.notEqual(more, sent);
  assert.equal(more.extra, true);
  assert.notEqual(stream.wireValues({ messages }), sent);
  const grown = stream.wireValues({ messages: [...messages, new AIMessage({ content: 'again', id: 'm3' })], step: 1 }) as { messages: { content: string }[] };
  assert.deepEqual(
    grown.messages.map((m) => m.content),
    ['hi', 'hello', 'again'],
  );

  // a subgraph's values chunk is not the run's state
  stream.chunk(['child:1'], 'values', { messages: [] });
  assert.equal(stream.wireValues({ messages, step: 1 }), sent);
});

test('without the values mode nothing is reused: the end state is serialised', () => {
  const stream = new RunStream(new Set(['updates']), () => undefined);
  const messages = [new HumanMessage({ content: 'hi', id: 'm1' })];
  stream.chunk([], 'values', { messages });
  const wire = stream.wireValues({ messages }) as { messages: { type: string; content: string }[] };
  assert.deepEqual(
    wire.messages.map((m) => [m.type, m.content]),
    [['human', 'hi']],
  );
});

test('values as text: plain data and states of messages go out as the JSON text of their wire form, both ways a stream writes it', () => {
  const messages = [new HumanMessage({ content: 'hi', id: 'm1' }), new AIMessage({ content: 'hello', id: 'm2' })];
  const states: Record<string, unknown>[] = [
    { messages: [{ type: 'human', content: 'hi', id: 'p1' }], count: 2, left: undefined, nested: [{ a: [1, null, 'x'] }] },
    { messages, step: 1 },
    { step: 3, messages },
  ];
  for (const state of states) {
    const expected = JSON.stringify(serialiseValues(state));
    // a run worker's stream (valuesAsText) and the plain runner's input state (interim)
    const asText: unknown[] = [];
    new RunStream(new Set(['values']), (_event, data) => asText.push(data), false, true, true).chunk([], 'values', state);
    new RunStream(new Set(['values']), (_event, data) => asText.push(data)).chunk([], 'values', state, true);
    for (const data of asText) {
      assert.ok(data instanceof JsonText, 'sent as text');
      assert.equal(data.text, expected);
    }
  }
  // what JSON cannot write goes as serialised data, for the publisher to deal with
  const published: unknown[] = [];
  new RunStream(new Set(['values']), (_event, data) => published.push(data), false, true, true).chunk([], 'values', { big: 1n });
  assert.ok(!(published[0] instanceof JsonText));
});

test("a run worker's end state that no values event carried goes as the JSON text of its wire form; what JSON cannot write, as data", () => {
  const messages = [new HumanMessage({ content: 'hi', id: 'm1' }), new AIMessage({ content: 'hello', id: 'm2' })];
  const state = { messages, step: 2 };
  // a protocol run asks for no `values`: no event to reuse, so the end state is made afresh
  const stream = new RunStream(new Set(['updates']), () => undefined, false, true, true);
  const wire = stream.wireValues(state);
  assert.ok(wire instanceof JsonText, 'as text: the main thread parses it once, not a clone copied and serialised again');
  assert.equal(wire.text, JSON.stringify(serialiseValues(state)));
  assert.ok(!(stream.wireValues({ big: 1n }) instanceof JsonText), 'a BigInt: serialised data, for the publisher to deal with');
  // in the main thread's own runs the end state stays data
  assert.ok(!(new RunStream(new Set(['updates']), () => undefined).wireValues(state) instanceof JsonText));
});
