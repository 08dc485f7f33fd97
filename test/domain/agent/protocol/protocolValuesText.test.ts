// A protocol `values` event's data written from the graph's values with each message's text made
// once (protocolValuesText.ts), and a `tasks` event's from the task as the graph gives it
// (runProtocolSource.ts), against the long way they replace: copied, reshaped, then written. The
// two must write the same text for every state, and again after a message changed in place.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { protocolValuesText } from '../../../../src/domain/agent/protocol/protocolValuesText.ts';
import { protocolState } from '../../../../src/domain/agent/protocol/stateMessages.ts';
import { serialiseValues } from '../../../../src/domain/agent/messages/messages.ts';
import { wireJson } from '../../../../src/domain/agent/messages/wireJson.ts';
import { RunProtocolSource } from '../../../../src/domain/agent/protocol/runProtocolSource.ts';
import { JsonText } from '../../../../src/shared/jsonText.ts';

const longWay = (values: unknown) => {
  const state = protocolState(serialiseValues(values));
  return { text: wireJson(state), keys: Object.keys(state as object).length };
};

const messages = () => [
  new SystemMessage({ content: 'be brief', id: 's1' }),
  new HumanMessage({ content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'http://x/y.png' } }, 'plain'] as never, id: 'h1' }),
  new AIMessage({
    content: 'calling',
    id: 'a1',
    tool_calls: [{ id: 'c1', name: 'search', args: { q: 'x' }, type: 'tool_call' }],
    response_metadata: { model: 'm' },
    usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
  }),
  new AIMessage({ content: '', id: 'a2', additional_kwargs: { tool_calls: [{ id: 'c2', type: 'function', function: { name: 'f', arguments: '{bad' } }] } }),
  new ToolMessage({ content: 'found', tool_call_id: 'c1', id: 't1', status: 'success', artifact: { rows: 2 } }),
  new HumanMessage({ content: 'no id here' }),
  new RemoveMessage({ id: 'gone' }),
];

describe("a protocol values event's text, each message's made once", () => {
  it('writes what the long way writes, for states of every kind of message and other keys', () => {
    const states: Record<string, unknown>[] = [
      { messages: messages() },
      { messages: [] },
      { messages: messages(), count: 3, notes: ['a', { b: null }], when: new Date(0), gone: undefined, nested: { messages: messages().slice(0, 2) } },
      { decision: 'yes', messages: messages(), __interrupt__: [{ id: 'i1', value: { q: 1 } }] },
      { history: messages(), messages: messages().slice(2) },
    ];
    for (const state of states) {
      const fast = protocolValuesText(state);
      assert.ok(fast, `the short way applies to ${Object.keys(state).join(',')}`);
      assert.deepEqual(fast, longWay(state));
    }
  });

  it('writes a message changed in place as it is now, not as its text made before', () => {
    const list = messages();
    const state = { messages: list };
    const before = protocolValuesText(state)!.text;
    assert.equal(protocolValuesText(state)!.text, before, 'the same text again');
    (list[2] as AIMessage).content = 'changed';
    (list[0] as SystemMessage).response_metadata.extra = true;
    const after = protocolValuesText(state)!;
    assert.notEqual(after.text, before);
    assert.deepEqual(after, longWay(state));
  });

  it('leaves to the long way what it does not cover', () => {
    assert.equal(protocolValuesText({ count: 1 }), undefined, 'no messages');
    assert.equal(protocolValuesText({ messages: [{ type: 'human', content: 'a dict' }] }), undefined, 'a message as a dict');
    assert.equal(protocolValuesText({ messages: 'text' }), undefined);
    assert.equal(protocolValuesText([new HumanMessage('x')]), undefined);
    assert.equal(protocolValuesText(JSON.parse('{"messages":[],"__proto__":{"a":1}}')), undefined);
    const odd = new HumanMessage('x');
    Object.defineProperty(odd, 'boom', { enumerable: true, get: () => new Map() });
    assert.equal(protocolValuesText({ messages: [odd] }), undefined, 'a message whose data cannot be memoised');
  });

  it('is what a protocol run publishes for a values event, and its interrupts are still announced', () => {
    const published: { event: string; data: unknown }[] = [];
    const source = new RunProtocolSource((event, data) => published.push({ event, data }));
    const state = { decision: 'yes', messages: messages(), __interrupt__: [{ id: 'i1', value: { q: 1 } }] };
    source.take({ method: 'values', params: { namespace: ['sub:1'], data: state } });
    assert.deepEqual(
      published.map((p) => (p.data instanceof JsonText ? 'text' : (p.data as { method: string }).method)),
      ['input.requested', 'text'],
    );
    const event = JSON.parse((published[1]!.data as JsonText).text);
    assert.equal(typeof event.params.timestamp, 'number');
    assert.deepEqual(event, { method: 'values', params: { namespace: ['sub:1'], timestamp: event.params.timestamp, data: JSON.parse(longWay(state).text!) } });
    assert.deepEqual(Object.keys(event.params), ['namespace', 'timestamp', 'data']);
  });

  it("writes a task's events from the graph's objects as the long way does, its config as the checkpoint it names", () => {
    const published: JsonText[] = [];
    const source = new RunProtocolSource((_event, data) => published.push(data as JsonText));
    const input = { messages: messages() };
    const configurable = { thread_id: 'th', checkpoint_ns: '', checkpoint_id: 'cp1', checkpoint_map: { '': 'cp1' }, other: 'left out' };
    const start = { id: 't1', name: 'echo', input, triggers: ['branch:to:echo'], state: { configurable, callbacks: new Map() } };
    const result = { id: 't1', name: 'echo', result: { messages: [new AIMessage({ content: 'hi', id: 'r1' })] }, interrupts: [] };
    const unnamed = { id: 't2', name: 'echo', input, state: { configurable: { thread_id: 'th' } } };
    for (const task of [start, result, unnamed]) source.take({ method: 'tasks', params: { namespace: [], data: task } });
    assert.ok(published.every((p) => p instanceof JsonText));
    const data = published.map((p) => JSON.stringify(JSON.parse(p.text).params.data));
    const { state: _state, ...rest } = start;
    const checkpoint = { thread_id: 'th', checkpoint_ns: '', checkpoint_id: 'cp1', checkpoint_map: { '': 'cp1' } };
    assert.deepEqual(data, [
      JSON.stringify(serialiseValues({ ...rest, checkpoint })),
      JSON.stringify(serialiseValues(result)),
      JSON.stringify(serialiseValues(unnamed)),
    ]);
  });
});
