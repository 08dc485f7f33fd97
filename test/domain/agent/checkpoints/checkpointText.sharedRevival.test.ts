// A page of a thread's history revives each unchanged message once (checkpointText.ts
// RevivedObjects, checkpointer.ts `list`): every checkpoint of a thread holds its messages
// again, and reviving them for each checkpoint was most of a history call. What is read must
// be exactly what LangGraph's serialiser reads; an object changed since it was revived, or
// wanted twice by one checkpoint, is revived afresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph, type CheckpointTuple } from '@langchain/langgraph';
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import { StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';
import { deserialiseSharing, RevivedObjects, serialise, type Serialised } from '../../../../src/domain/agent/checkpoints/checkpointText.ts';
import { conversation } from '../../../support/conversation.ts';

const serde = new MemorySaver().serde;
const upstreamRead = (stored: Serialised) => serde.loadsTyped(stored.type, stored.text!);

/** Values with what the serialiser revives in its own way around and inside messages. */
function values(): unknown[] {
  const messages = conversation();
  const inner = { nested: [1, { deeper: messages[0] }] };
  let deep: unknown = 'bottom';
  for (let i = 0; i < 80; i += 1) deep = { deep };
  return [
    { messages },
    messages,
    messages[1],
    // a ToolMessage's absent artifact is an `undefined` record inside the message's text
    [new ToolMessage({ content: '0', tool_call_id: 'c', id: 't', artifact: undefined })],
    { absent: undefined, list: [undefined, messages[2]], set: new Set([1, 2]), when: new Date(0), bytes: new Uint8Array([1]) },
    // a message inside another one: the serialiser revives the inner one first
    [new AIMessage({ content: 'outer', id: 'o', additional_kwargs: { carried: new HumanMessage({ content: 'inner', id: 'i' }) } })],
    { inner, deep, messages },
    'a string',
    null,
  ];
}

test('a value read sharing revived objects is exactly what LangGraph’s serialiser reads, objects and prototypes alike', async () => {
  for (const [i, value] of values().entries()) {
    const stored = await serialise(serde, value);
    const revived = new RevivedObjects();
    // twice: revived the first time, shared the second
    for (const round of [1, 2]) {
      revived.nextCheckpoint();
      assert.deepStrictEqual(await deserialiseSharing(serde, stored, revived), await upstreamRead(stored), `value ${i}, read ${round}`);
    }
  }
});

test('an own "__proto__" in a value becomes its prototype, as the serialiser reads it', async () => {
  const stored = await serialise(serde, { messages: conversation(), dict: JSON.parse('{"__proto__": {"polluted": true}, "kept": 1}') });
  const revived = new RevivedObjects();
  revived.nextCheckpoint();
  const read = await deserialiseSharing(serde, stored, revived);
  const upstream = await upstreamRead(stored);
  // (deepStrictEqual compares prototypes by identity: each read has its own)
  assert.deepEqual([Object.getPrototypeOf(read.dict), Object.hasOwn(read.dict, '__proto__')], [{ polluted: true }, false]);
  assert.deepEqual([Object.getPrototypeOf(upstream.dict), Object.hasOwn(upstream.dict, '__proto__')], [{ polluted: true }, false]);
  assert.deepStrictEqual(read.messages, upstream.messages);
});

test('a message is shared by the checkpoints of one read while unchanged, and is never one object twice in one checkpoint', async () => {
  const [message] = conversation();
  const stored = await serialise(serde, { messages: [message, message] });
  const revived = new RevivedObjects();
  revived.nextCheckpoint();
  const first = await deserialiseSharing(serde, stored, revived);
  assert.notEqual(first.messages[0], first.messages[1], 'one checkpoint holding a message twice holds two objects, as the serialiser reads it');
  revived.nextCheckpoint();
  const second = await deserialiseSharing(serde, stored, revived);
  assert.ok(second.messages[0] === first.messages[0] || second.messages[0] === first.messages[1], 'the next checkpoint shares the revived message');

  // a reader changed the shared object: the next checkpoint gets the stored message, not the change
  second.messages[0].content = 'changed by a reader';
  second.messages[1].content = 'changed by a reader';
  revived.nextCheckpoint();
  const third = await deserialiseSharing(serde, stored, revived);
  assert.deepStrictEqual(third, await upstreamRead(stored));
});

test('a page of history revives each message of the thread once, and reads as each checkpoint read alone', async () => {
  const store = await openJournalStore({ dataDir: null });
  try {
    const saver = await new StoreCheckpointer(new CollectionCheckpoints(store)).langGraphSaver();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('reply', (state) => ({ messages: [new AIMessage({ content: `reply to ${String(state.messages.at(-1)?.content)}` })] }))
      .addEdge(START, 'reply')
      .addEdge('reply', END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 't1' } };
    for (let i = 0; i < 5; i += 1) await graph.invoke({ messages: [new HumanMessage(`turn ${i}`)] }, config);

    const page: CheckpointTuple[] = [];
    for await (const tuple of saver.list(config)) page.push(tuple);
    assert.ok(page.length >= 15, `three checkpoints a run (${page.length})`);
    const read = page.flatMap((tuple) => (tuple.checkpoint.channel_values.messages as object[] | undefined) ?? []);
    const objects = new Set(read);
    const ids = new Set(read.map((m) => (m as { id: string }).id));
    assert.equal(ids.size, 10, 'two messages a run');
    assert.ok(read.length > 3 * ids.size, `the checkpoints hold their messages again and again (${read.length} in all)`);
    assert.equal(objects.size, ids.size, 'each message revived once for the page');

    for (const tuple of page) {
      const alone = await saver.getTuple(tuple.config);
      assert.deepStrictEqual(tuple.checkpoint, alone?.checkpoint, `checkpoint ${String(tuple.config.configurable?.checkpoint_id)}`);
    }
  } finally {
    await store.close();
  }
});
