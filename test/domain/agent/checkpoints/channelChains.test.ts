// How a growing value is cut into a tail of its parent's and joined back (channelChains.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asTail, joinChain, sharedPrefix } from '../../../../src/domain/agent/checkpoints/channelChains.ts';

test('the shared prefix of two texts, across pieces, never ending inside a surrogate pair', () => {
  const long = 'a'.repeat(200_000);
  assert.equal(sharedPrefix(long + 'b', long + 'c'), 200_000);
  assert.equal(sharedPrefix(long, long + 'more'), 200_000);
  assert.equal(sharedPrefix('xyz', 'abc'), 0);
  // 😀 and 😁 share their high surrogate: the prefix stops before it
  assert.equal(sharedPrefix(`${long}😀`, `${long}😁`), 200_000);
});

test('a chain of tails, each cut from the value before it, joins back to each value whole', () => {
  const versions: string[] = [JSON.stringify(['first'.padEnd(5_000, '.')])];
  for (let i = 0; i < 10; i += 1) versions.push(JSON.stringify([...JSON.parse(versions.at(-1)!), `item ${i} 😀`.padEnd(3_000, '-')]));
  const records = [{ value: { type: 'json', text: versions[0] } }] as { keep?: number; value: { type: string; text: string } }[];
  let ref = { version: 0, at: 'v0', chars: versions[0].length } as Parameters<typeof asTail>[0]['ref'];
  for (let i = 1; i < versions.length; i += 1) {
    const tail = asTail({ ref, value: { type: 'json', text: versions[i - 1] } }, versions[i]);
    assert.ok(tail, `version ${i} is a tail`);
    assert.ok(tail.tail.length < 3_100, 'only what it adds');
    records.push({ keep: tail.keep, value: { type: 'json', text: tail.tail } });
    ref = { version: i, at: `v${i}`, chars: versions[i].length, base: tail.base, stored: tail.stored };
    assert.equal(joinChain(records)?.text, versions[i]);
  }
  assert.equal(joinChain([records[0], undefined])?.text, undefined, 'a missing record: no value');
});

test('a value that shares too little with its parent is stored whole', () => {
  const parent = { ref: { version: 1, at: 'p', chars: 10_000 }, value: { type: 'json', text: 'p'.repeat(10_000) } };
  assert.equal(asTail(parent, 'q'.repeat(10_000)), undefined);
  assert.equal(asTail(parent, 'p'.repeat(100)), undefined, 'too short to be worth a chain');
  // a chain already storing 30,000 characters, and 15,000 more for a 20,000-character value: past twice it
  const rewritten = { ref: { ...parent.ref, stored: 30_000 }, value: parent.value };
  assert.equal(asTail(rewritten, `${'p'.repeat(5_000)}${'r'.repeat(15_000)}`), undefined, 'the chain would store more than twice the value');
});
