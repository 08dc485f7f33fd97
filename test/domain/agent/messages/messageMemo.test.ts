// A memo is reused while its object holds the data it was copied with (messageMemo.ts). A value
// reached twice in one object (a LangChain message's field and its `lc_kwargs` entry are one
// object) is compared once a check: these tests change it through one path or the other, in
// place or by replacement, and a memo must be kept exactly while the data is the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage } from '@langchain/core/messages';
import { memoOf } from '../../../../src/domain/agent/messages/messageMemo.ts';

type Loose = Record<string, any>;

const message = () =>
  new AIMessage({
    content: [{ type: 'text', text: 'blocks' }],
    id: 'a1',
    tool_calls: [{ id: 'c1', name: 'search', args: { q: 'x', nested: { deep: [1, 'y'] } } }],
    additional_kwargs: { extra: { inner: [1, 2] } },
    response_metadata: { model: 'm' },
  }) as unknown as Loose;

test("a message's fields and its lc_kwargs hold the same objects (what the shortcut rests on)", () => {
  const m = message();
  assert.equal(m.additional_kwargs, m.lc_kwargs.additional_kwargs);
  assert.equal(m.content, m.lc_kwargs.content);
  assert.equal(m.response_metadata, m.lc_kwargs.response_metadata);
});

test('an unchanged message keeps its memo, check after check', () => {
  const m = message();
  const memo = memoOf(m);
  assert.ok(memo);
  for (let i = 0; i < 3; i += 1) assert.equal(memoOf(m), memo);
});

test('a value shared by two paths, changed in place, is a change whichever path reads it first', () => {
  const changes: ((m: Loose) => void)[] = [
    (m) => (m.additional_kwargs.extra.inner[1] = 3),
    (m) => (m.lc_kwargs.additional_kwargs.extra.added = true),
    (m) => m.content.push({ type: 'text', text: 'more' }),
    (m) => (m.lc_kwargs.content[0].text = 'other'),
    (m) => delete m.response_metadata.model,
  ];
  for (const [i, change] of changes.entries()) {
    const m = message();
    const memo = memoOf(m);
    change(m);
    const after = memoOf(m);
    assert.ok(after, `change ${i}`);
    assert.notEqual(after, memo, `change ${i}: a new memo`);
    assert.equal(memoOf(m), after, `change ${i}: then kept`);
  }
});

test('one path given another object: a change when its data differs, the same memo when it holds the same data', () => {
  const different: ((m: Loose) => void)[] = [
    (m) => (m.lc_kwargs.additional_kwargs = { extra: { inner: [1, 3] } }),
    (m) => (m.additional_kwargs = { extra: { inner: [1, 3] } }),
    (m) => (m.lc_kwargs.content = [{ type: 'text', text: 'other' }]),
    (m) =>
      (m.content = [
        { type: 'text', text: 'blocks' },
        { type: 'text', text: 'more' },
      ]),
    (m) => (m.lc_kwargs.response_metadata = {}),
  ];
  for (const [i, change] of different.entries()) {
    const m = message();
    const memo = memoOf(m);
    change(m);
    assert.notEqual(memoOf(m), memo, `change ${i}`);
  }
  const same: ((m: Loose) => void)[] = [
    (m) => (m.lc_kwargs.additional_kwargs = structuredClone(m.additional_kwargs)),
    (m) => (m.additional_kwargs = structuredClone(m.additional_kwargs)),
    (m) => (m.content = structuredClone(m.content)),
    (m) => ((m.content = structuredClone(m.content)), (m.lc_kwargs.content = structuredClone(m.content))),
  ];
  for (const [i, change] of same.entries()) {
    const m = message();
    const memo = memoOf(m);
    change(m);
    assert.equal(memoOf(m), memo, `same data ${i}`);
  }
});

test('two paths that held distinct objects of equal data are each compared: one changed in place is a change', () => {
  const m = message();
  m.lc_kwargs.additional_kwargs = structuredClone(m.additional_kwargs);
  const memo = memoOf(m);
  assert.equal(memoOf(m), memo);
  m.lc_kwargs.additional_kwargs.extra.inner.push(9);
  assert.notEqual(memoOf(m), memo);
});

test('a shared value found unchanged by one check is compared afresh by the next', () => {
  const m = message();
  const memo = memoOf(m);
  assert.equal(memoOf(m), memo);
  // both paths still hold the one object, now changed in place
  m.additional_kwargs.extra.inner.push(9);
  assert.notEqual(memoOf(m), memo);
});

test('one object held many times over, deeply, is copied and compared once per object', () => {
  // 40 levels of an object holding the next twice: 2^40 paths, 40 objects (deeper than MAX_DEPTH)
  let shared: Loose = { leaf: 'x' };
  for (let i = 0; i < 40; i += 1) shared = { left: shared, right: shared };
  const m = message();
  m.additional_kwargs = { shared };
  // deeper than a memo copies: no memo, refused at the first path that goes too deep
  assert.equal(memoOf(m), undefined);
  let shallow: Loose = { leaf: 'x' };
  for (let i = 0; i < 25; i += 1) shallow = { left: shallow, right: shallow };
  const n = message();
  n.additional_kwargs = { shallow };
  const memo = memoOf(n);
  assert.ok(memo);
  assert.equal(memoOf(n), memo);
  let bottom = shallow;
  while (bottom.left) bottom = bottom.left;
  bottom.leaf = 'y';
  assert.notEqual(memoOf(n), memo);
});

test('a cycle is not plain data: no memo', () => {
  const m = message();
  const cycle: Loose = { name: 'loop' };
  cycle.self = cycle;
  m.additional_kwargs = { cycle };
  assert.equal(memoOf(m), undefined);
});
