// A run worker's batch as the main thread handles it: a thread's checkpoint writes go as one
// store write past the stream events between them, never past anything else (batchGroups.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { batchGroups } from '../../../src/adapters/run-workers/batchGroups.ts';
import type { FromWorker, StoreCall } from '../../../src/adapters/run-workers/protocol.ts';

let ids = 0;
const write = (order: string, warmUp = false): StoreCall => ({ type: 'call', id: ++ids, target: 'write', method: 'write', args: [[]], order, warmUp });
const event = (runId: string): FromWorker => ({ type: 'event', runId, event: 'values', text: '{}' });
const name = (m: FromWorker): string =>
  m.type === 'call' ? `${m.target === 'write' ? 'W' : 'C'}${m.order ?? '-'}${m.id}` : m.type === 'event' ? `E${m.runId}` : m.type;
const shape = (handled: (FromWorker | StoreCall[])[]) => handled.map((one) => (Array.isArray(one) ? one.map(name) : name(one)));
const always = () => true;

describe('batchGroups', () => {
  it("joins a thread's writes past the events between them, in the place of the first", () => {
    ids = 0;
    const messages = [write('a'), event('r1'), write('a'), write('a'), event('r1'), write('b'), event('r2'), write('b')];
    // before, a write joined only the one beside it: Wa1, Er1, [Wa2 Wa3], Er1, Wb4, Er2, Wb5 (four store writes)
    assert.deepEqual(shape(batchGroups(messages, always)), [['Wa1', 'Wa2', 'Wa3'], 'Er1', 'Er1', ['Wb4', 'Wb5'], 'Er2']);
  });

  it("stops at another thread's write, any other call, a run's end or a log line", () => {
    ids = 0;
    const read: StoreCall = { type: 'call', id: 100, target: 'collection', method: 'get', args: [], order: 'a', warmUp: false };
    const done: FromWorker = { type: 'done', runId: 'r1', output: { values: {} } as never };
    const log: FromWorker = { type: 'log', level: 'info', message: 'x', fields: {} };
    assert.deepEqual(shape(batchGroups([write('a'), write('b'), write('a')], always)), ['Wa1', 'Wb2', 'Wa3']);
    assert.deepEqual(shape(batchGroups([write('a'), event('r1'), read, write('a')], always)), ['Wa4', 'Er1', 'Ca100', 'Wa5']);
    assert.deepEqual(shape(batchGroups([write('a'), done, write('a')], always)), ['Wa6', 'done', 'Wa7']);
    assert.deepEqual(shape(batchGroups([write('a'), log, write('a')], always)), ['Wa8', 'log', 'Wa9']);
  });

  it('keeps a warm-up’s writes apart from the server’s, and stops where the group is full', () => {
    ids = 0;
    assert.deepEqual(shape(batchGroups([write('a'), event('r'), write('a', true)], always)), ['Wa1', 'Er', 'Wa2']);
    const two = (group: StoreCall[]) => group.length < 2;
    assert.deepEqual(shape(batchGroups([write('a'), event('r'), write('a'), event('r'), write('a')], two)), [['Wa3', 'Wa4'], 'Er', 'Er', 'Wa5']);
  });
});
