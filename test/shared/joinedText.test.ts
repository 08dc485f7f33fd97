// Keys and texts made of ASCII parts stay one-byte strings, whatever V8 did to the parts
// (src/shared/joinedText.ts): a part used as a property name first (a "thin" string) made
// Array.prototype.join's result two-byte, and every journal line holding that id with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { randomUUID } from 'node:crypto';
import { joinedText } from '../../src/shared/joinedText.ts';
import { checkpointKey } from '../../src/domain/agent/checkpoints/checkpointer.ts';

/** Whether V8 holds `text` as one byte a character (its serialisation's tag: `"` one-byte, `c` or padding two-byte). */
const isOneByte = (text: string) => v8.serialize(text)[2] === 0x22;

/** A fresh string that V8 has internalised since it was made, as using it for a property name does: a thin string. */
function thin(): string {
  const text = randomUUID();
  const names: Record<string, number> = {};
  names[text] = 1;
  return text;
}

test('joinedText reads as Array.prototype.join', () => {
  for (const parts of [[], [''], ['a'], ['a', ''], ['', 'b', ''], ['a', 'b', 'c'], ['é', '😀', 'x']]) {
    for (const separator of ['\u001f', '|', '', ', ']) assert.equal(joinedText(parts, separator), parts.join(separator), JSON.stringify({ parts, separator }));
  }
});

test('parts that V8 has internalised since they were made give a one-byte key', () => {
  const task = thin();
  const key = joinedText([randomUUID(), '', randomUUID(), task, '0'], '\u001f');
  assert.ok(isOneByte(key), 'one byte a character');
  assert.ok(isOneByte(checkpointKey(randomUUID(), '', thin())), 'a checkpoint key');
  assert.ok(isOneByte(checkpointKey(checkpointKey(thin(), '', randomUUID()), thin(), String(0))), "a write's key: its checkpoint's key, task and index");
  assert.ok(isOneByte(JSON.stringify({ id: key })), 'and so is the JSON holding it');
});
