// The production reply check's sampling: every reply of an operation and status at first, then one in CHECK_EVERY.
import test from 'node:test';
import assert from 'node:assert/strict';
import { apiDocuments } from '../../../../src/runtime/api.ts';
import { CHECK_EVERY, CHECK_FIRST, ResponseValidators } from '../../../../src/runtime/transports/http/responseValidators.ts';

const operations = apiDocuments.find((d) => d.key === 'agent-server')!.operations;
const getThread = operations.find((o) => o.operationId === 'getThread')!;
const createThread = operations.find((o) => o.operationId === 'createThread')!;

test('the first replies of each operation and status are all checked, later ones one in CHECK_EVERY', () => {
  const validators = new ResponseValidators();
  const due = (n: number, op = getThread, status = 200) => Array.from({ length: n }, () => validators.due(op, status)).filter(Boolean).length;
  assert.equal(due(CHECK_FIRST), CHECK_FIRST);
  assert.equal(due(CHECK_EVERY * 10), 10);
  // another status of the same operation, and another operation, start with every reply checked
  assert.equal(due(5, getThread, 404), 5);
  assert.equal(due(5, createThread), 5);
});
