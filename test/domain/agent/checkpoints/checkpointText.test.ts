// Checkpoints and `values` events reuse the work done on each unchanged LangChain message
// (src/domain/agent/messages/messageMemo.ts, checkpointText.ts, messages.ts): the stored text must be
// exactly what LangGraph's serialiser makes of the whole value, a message changed in place
// (deeply) must be serialised afresh, and an unchanged one must not be serialised again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AIMessage } from '@langchain/core/messages';
import { MemorySaver, emptyCheckpoint } from '@langchain/langgraph';
import { deserialise, serialise } from '../../../../src/domain/agent/checkpoints/checkpointText.ts';
import { serialiseValues } from '../../../../src/domain/agent/messages/messages.ts';
import { conversation } from '../../../support/conversation.ts';

const serde = new MemorySaver().serde;
const upstreamText = async (value: unknown) => {
  const [type, bytes] = await serde.dumpsTyped(value);
  assert.equal(type, 'json');
  return Buffer.from(bytes).toString('utf8');
};

test('a checkpoint is stored as exactly the text LangGraph serialises it to, cold and warm, and reads back as the same messages', async () => {
  const messages = conversation();
  const shared = messages[0];
  const checkpoint = {
    ...emptyCheckpoint(),
    id: '1ef00000-0000-6000-8000-000000000001',
    channel_values: {
      messages,
      // the same message twice, a message at the top of a channel, in a dict, beside values the serialiser encodes itself
      again: [shared, shared],
      single: messages[1],
      dict: { inner: { m: messages[2] }, when: new Date(0), set: new Set([1, 2]), nothing: undefined },
      text: 'a plain "string" \u0000agentplane-object-',
      bytes: new Uint8Array([1, 2, 3]),
    },
  };
  const expected = await upstreamText(checkpoint);
  assert.equal((await serialise(serde, checkpoint)).text, expected, 'cold: every message serialised for the first time');
  assert.equal((await serialise(serde, checkpoint)).text, expected, 'warm: every message text reused');
  // a pending write that is one message, and one that is a list of them
  assert.equal((await serialise(serde, messages[3])).text, await upstreamText(messages[3]));
  assert.equal((await serialise(serde, [messages[3]])).text, await upstreamText([messages[3]]));

  const back = await deserialise(serde, await serialise(serde, checkpoint));
  assert.equal(back.channel_values.messages.length, 4);
  for (const [i, m] of back.channel_values.messages.entries()) {
    assert.equal(m.constructor.name, messages[i].constructor.name);
    assert.deepEqual(m.content, messages[i].content);
    assert.equal(m.id, messages[i].id);
  }
  assert.deepEqual(back.channel_values.messages[1].tool_calls, (messages[1] as AIMessage).tool_calls);
});

test('a message changed in place after it was stored is stored as it is now, however deep the change', async () => {
  const messages = conversation();
  const value = { channel_values: { messages } };
  await serialise(serde, value);
  const changes: (() => void)[] = [
    () => (messages[0].content = 'changed'),
    () => (messages[1] as AIMessage).tool_calls![0].args.nested.deep.push('more'),
    () => ((messages[1].additional_kwargs as Record<string, unknown>).added = { x: 1 }),
    () => delete (messages[1].additional_kwargs as Record<string, unknown>).extra,
    () => ((messages[3].content as { text: string }[])[0].text = 'other blocks'),
    () => (messages[2].response_metadata = { replaced: true }),
    () => ((messages[2] as unknown as Record<string, unknown>).name = 'renamed'),
    () => ((messages[0].additional_kwargs as Record<string, unknown>).when = new Date(5)),
    () => ((messages[0].additional_kwargs as Record<string, unknown>).when = 'a string again'),
    // a primitive for another of equal look or none: 1, '1', true, NaN (which is not equal to itself), null
    () => ((messages[0].additional_kwargs as Record<string, unknown>).count = 1),
    () => ((messages[0].additional_kwargs as Record<string, unknown>).count = '1'),
    () => ((messages[0].additional_kwargs as Record<string, unknown>).count = true),
    () => ((messages[0].additional_kwargs as Record<string, unknown>).count = NaN),
    () => ((messages[0].additional_kwargs as Record<string, unknown>).count = null),
    () => (messages[1] as AIMessage).tool_calls![0].args.nested.deep.splice(0, 1, 0),
    // a nested plain object made an instance of something else in place
    () => Object.setPrototypeOf(messages[2].response_metadata, { toJSON: () => 'not plain any more' }),
  ];
  for (const [i, change] of changes.entries()) {
    change();
    assert.equal((await serialise(serde, value)).text, await upstreamText(value), `after change ${i}`);
  }
});

test('an unchanged message is not serialised again for a checkpoint, nor turned into a dict again for a values event', async () => {
  const [message] = conversation();
  let toJSON = 0;
  let toDict = 0;
  const own = message.toJSON.bind(message);
  const ownDict = message.toDict.bind(message);
  message.toJSON = () => ((toJSON += 1), own());
  message.toDict = () => ((toDict += 1), ownDict());
  // the spies are own properties: they are the message's data now, so take the first memo after them
  const state = { messages: [message] };
  await serialise(serde, state);
  const first = toJSON;
  assert.ok(first >= 1);
  for (let i = 0; i < 5; i += 1) await serialise(serde, state);
  assert.equal(toJSON, first, 'the text of the unchanged message is reused');

  const wire = serialiseValues(state) as { messages: Record<string, unknown>[] };
  const dictCalls = toDict;
  assert.ok(dictCalls >= 1);
  const again = serialiseValues(state) as { messages: Record<string, unknown>[] };
  assert.equal(toDict, dictCalls, 'the dict of the unchanged message is reused');
  assert.deepEqual(again, wire);
  // each event gets its own copy: what one reader does to it is not in the next event
  assert.notEqual(again.messages[0], wire.messages[0]);
  wire.messages[0].content = 'changed by a reader';
  assert.equal((serialiseValues(state) as typeof wire).messages[0].content, message.content);

  message.content = 'changed in place';
  assert.equal((serialiseValues(state) as typeof wire).messages[0].content, 'changed in place');
  assert.ok(toDict > dictCalls, 'a changed message is turned into a dict afresh');
});

test('a message whose data cannot be copied (a getter that throws, a Map inside) is handled as without memos', async () => {
  const [human, ai] = conversation();
  // an own property LangChain's toDict does not read, whose getter throws
  Object.defineProperty(human, 'unreadable', {
    enumerable: true,
    configurable: true,
    get: () => {
      throw new Error('not readable');
    },
  });
  (ai.additional_kwargs as Record<string, unknown>).lookup = new Map([['k', 'v']]);
  const state = { messages: [human, ai] };
  for (let i = 0; i < 2; i += 1) {
    const wire = serialiseValues(state) as { messages: Record<string, unknown>[] };
    assert.deepEqual(wire.messages[0], { ...human.toDict().data, type: 'human' });
    assert.deepEqual(wire.messages[1], { ...ai.toDict().data, type: 'ai' });
  }
  // LangGraph's serialiser reads every property: it fails on that message as it did before
  await assert.rejects(upstreamText(state), /not readable/);
  await assert.rejects(serialise(serde, state), /not readable/);
  delete (human as unknown as Record<string, unknown>).unreadable;
  for (let i = 0; i < 2; i += 1) assert.equal((await serialise(serde, state)).text, await upstreamText(state));
});

test('plain data around the messages is stored as exactly the text LangGraph serialises it to, and so is what its serialiser rewrites', async () => {
  const [human] = conversation();
  const sparse: unknown[] = [1];
  sparse[2] = 3;
  const values: unknown[] = [
    { messages: [human], n: [0, -0, 1.5, 1e21, NaN, Infinity, -Infinity], flags: [true, false, null], text: 'é 😀 \ud800 "q" \\ \n' },
    { '2': 'two', b: { '1': 'one', a: [] }, '0': {}, ['__proto__']: 'own key' },
    Object.assign(Object.create(null), { bare: { deeper: [human] } }),
    // what LangGraph's replacer rewrites, beside plain data
    { send: { lg_name: 'Send', node: 'n', args: { x: 1 } } },
    { hole: sparse },
    { missing: undefined, list: [undefined] },
    { when: new Date(0), custom: { toJSON: () => ({ replaced: true }) } },
    { set: new Set([1]), map: new Map([['k', human]]), error: new Error('e'), pattern: /x/g },
    // an array's own toJSON is what the serialiser writes of it
    { listed: Object.assign([1, 2], { toJSON: () => 'as a whole' }) },
    { listedMessages: Object.assign([human], { toJSON: () => 'as a whole' }) },
  ];
  for (const value of values) {
    const expected = await upstreamText(value);
    assert.equal((await serialise(serde, value)).text, expected, `cold: ${expected}`);
    assert.equal((await serialise(serde, value)).text, expected, `warm: ${expected}`);
  }
});
