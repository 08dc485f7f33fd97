// What a failed run's `error` says (issue 90, point 2): the thrown error's `name`, as upstream's
// serializeError writes it — a subclass that does not set its own name (LangChain's
// OutputParserException among them) is an "Error", as it is to the upstream server.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeError } from '../../../src/domain/agent/records.ts';

class Unnamed extends Error {}
class Named extends Error {
  override name = 'NamedError';
}

it("a failed run's error is the thrown error's name, not its class's", () => {
  assert.deepEqual(describeError(new Unnamed('bad output')), { error: 'Error', message: 'bad output' });
  assert.deepEqual(describeError(new Named('told')), { error: 'NamedError', message: 'told' });
  assert.deepEqual(describeError(new TypeError('x')), { error: 'TypeError', message: 'x' });
});

it('something thrown that is no Error is an "Error" with its text', () => {
  assert.deepEqual(describeError('plain'), { error: 'Error', message: 'plain' });
  assert.deepEqual(describeError({ code: 1 }), { error: 'Error', message: '{"code":1}' });
});
