import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quietAbort } from '../../src/shared/quietAbort.ts';

test('quietAbort aborts as abort() does: the signal is aborted, its listeners run once, the reason is an AbortError', () => {
  const controller = new AbortController();
  let heard = 0;
  controller.signal.addEventListener('abort', () => (heard += 1));
  quietAbort(controller);
  quietAbort(controller);
  assert.equal(controller.signal.aborted, true);
  assert.equal(heard, 1);
  assert.equal((controller.signal.reason as DOMException).name, 'AbortError');
  assert.throws(() => controller.signal.throwIfAborted(), { name: 'AbortError' });
});

test('quietAbort makes no Error per abort: every controller it ends carries the one reason (a thousand closing subscribers make none)', () => {
  const a = new AbortController();
  const b = new AbortController();
  quietAbort(a);
  quietAbort(b);
  assert.equal(a.signal.reason, b.signal.reason);
  quietAbort(undefined); // a controller not made yet: nothing to end
});
