// upstream's containment of a thread search's `values` (the JS server's isJsonbContained),
// with own properties only
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stateContains } from '../../../../src/domain/agent/threads/stateContainment.ts';

const state = {
  messages: [
    { type: 'human', content: 'hi', id: 'm1' },
    { type: 'ai', content: 'hello', id: 'm2' },
  ],
  topic: 'weather',
  count: 2,
  nested: { a: { b: 1, c: [1, 2] } },
};

describe('stateContains', () => {
  it('matches a partial object inside a list, item by item at the same position', () => {
    assert.equal(stateContains(state, { messages: [{ content: 'hi' }] }), true);
    assert.equal(stateContains(state, { messages: [{ content: 'hi' }, { type: 'ai' }] }), true);
    // the second item is not the first: positions count, as upstream's
    assert.equal(stateContains(state, { messages: [{ content: 'hello' }] }), false);
    assert.equal(stateContains(state, { messages: [{}, { content: 'hello' }] }), true);
    assert.equal(stateContains(state, { messages: [{ content: 'hi', type: 'ai' }] }), false);
  });

  it('matches partial nested objects and list prefixes', () => {
    assert.equal(stateContains(state, { nested: { a: { b: 1 } } }), true);
    assert.equal(stateContains(state, { nested: { a: { c: [1] } } }), true);
    assert.equal(stateContains(state, { nested: { a: { c: [2] } } }), false);
    assert.equal(stateContains(state, { nested: {} }), true);
  });

  it('compares everything else with ===', () => {
    assert.equal(stateContains(state, { topic: 'weather', count: 2 }), true);
    assert.equal(stateContains(state, { count: '2' }), false);
    assert.equal(stateContains(state, { topic: { length: 7 } }), false);
    assert.equal(stateContains(state, { nested: 'x' }), false);
  });

  it('never matches a key that is missing or null, even asked for null', () => {
    assert.equal(stateContains(state, { missing: null }), false);
    assert.equal(stateContains({ gone: null }, { gone: null }), false);
    assert.equal(stateContains(state, { missing: 1 }), false);
  });

  it('lets a state that is not there yet (a thread never run) contain any filter, and any state the empty one', () => {
    assert.equal(stateContains(null, { topic: 'weather' }), true);
    assert.equal(stateContains(undefined, { topic: 'weather' }), true);
    assert.equal(stateContains(state, {}), true);
    assert.equal(stateContains({}, { topic: 'weather' }), false);
  });

  it('reads own properties only: a filter cannot match through the prototype', () => {
    assert.equal(stateContains(state, JSON.parse('{"__proto__": {}}')), false);
    assert.equal(stateContains(state, { constructor: {} }), false);
    assert.equal(stateContains(state, { messages: { length: 2 } }), true, "a list's own length, as upstream reads it");
  });
});
