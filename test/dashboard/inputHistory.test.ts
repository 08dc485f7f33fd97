// The chat's input history (ui/src/inputHistory.ts), as Studio's: Up brings back the messages
// sent, newest first, Down goes forward to what was being typed; kept in the browser's storage.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputHistory, LIMIT, onFirstLine, onLastLine } from '../../ui/src/inputHistory.ts';

const memory = () => {
  const items = new Map<string, string>();
  return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) };
};

test('Up walks back through what was sent, Down forward to the draft kept', () => {
  const history = new InputHistory(memory());
  history.push('first');
  history.push('second');
  assert.equal(history.up('half-typed'), 'second');
  assert.equal(history.up('second'), 'first');
  assert.equal(history.up('first'), undefined, 'nothing older');
  assert.equal(history.down(), 'second');
  assert.equal(history.down(), 'half-typed', 'back to what was being typed');
  assert.equal(history.down(), undefined);
});

test('kept across pages in the storage, a message repeated once in a row, the last LIMIT only', () => {
  const storage = memory();
  const history = new InputHistory(storage);
  for (let i = 0; i < LIMIT + 5; i++) history.push(`m${i}`);
  history.push(`m${LIMIT + 4}`);
  const reopened = new InputHistory(storage);
  assert.equal(reopened.up(''), `m${LIMIT + 4}`);
  assert.equal(reopened.up(''), `m${LIMIT + 3}`, 'the repeat was kept once');
  let oldest = '';
  for (let step = reopened.up(''); step !== undefined; step = reopened.up('')) oldest = step;
  assert.equal(oldest, 'm5');
});

test('a storage that refuses or holds nonsense: the history lasts as long as the page', () => {
  const refusing = {
    getItem: () => 'not json',
    setItem: () => {
      throw new Error('quota');
    },
  };
  const history = new InputHistory(refusing);
  history.push('kept in the page');
  assert.equal(history.up(''), 'kept in the page');
  assert.equal(new InputHistory(undefined).up('x'), undefined);
});

test('the keys take the history only on the first line (Up) or the last (Down)', () => {
  assert.equal(onFirstLine('one\ntwo', 2), true);
  assert.equal(onFirstLine('one\ntwo', 5), false);
  assert.equal(onLastLine('one\ntwo', 5), true);
  assert.equal(onLastLine('one\ntwo', 2), false);
});
