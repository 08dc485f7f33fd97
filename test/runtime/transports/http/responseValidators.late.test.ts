// The production reply check's validators arrive after the server listens
// (src/runtime/transports/http/responseValidators.ts): a reply written before then is checked when they do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseValidators } from '../../../../src/runtime/transports/http/responseValidators.ts';
import type { ValidatorTable } from '../../../../src/runtime/api.ts';

const table = { probe: (() => true) as unknown } as unknown as ValidatorTable;

test('a check asked for before the validators arrive is made when they do, in order; later ones at once', () => {
  const validators = new ResponseValidators();
  const made: string[] = [];
  validators.check((t) => made.push(`first ${t === table}`));
  validators.check((t) => made.push(`second ${t === table}`));
  assert.equal(made.length, 0, 'nothing to check with yet');
  assert.equal(validators.loaded, undefined);
  validators.arrive(table);
  assert.deepEqual(made, ['first true', 'second true']);
  validators.check(() => made.push('third'));
  assert.deepEqual(made, ['first true', 'second true', 'third']);
  assert.equal(validators.loaded, table);
});

test('validators given at the start check at once', () => {
  const validators = new ResponseValidators(table);
  let made = 0;
  validators.check(() => (made += 1));
  assert.equal(made, 1);
});
