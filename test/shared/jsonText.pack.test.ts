// A JsonText's text held as bytes, off V8's heap (issue 87: a run's event texts kept by its
// finished log were copied twice by the main thread's scavenges): it reads back the same, its
// length known without reading it; a text UTF-8 cannot carry stays a string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonText, jsonOf } from '../../src/shared/jsonText.ts';

test('a packed text reads back the same, ASCII or not, and parses the same', () => {
  for (const data of [{ a: 'plain ascii', n: [1, 2] }, { a: 'é "quoted" \u2028 中文 😀', b: null }, 'x'.repeat(5000)]) {
    const text = JSON.stringify(data);
    const entry = new JsonText(text);
    entry.pack();
    assert.equal(entry.isPacked, true);
    assert.equal(entry.text, text);
    assert.equal(entry.length, text.length);
    assert.equal(jsonOf(entry), text);
    assert.deepEqual(entry.value, data);
    assert.equal(JSON.stringify({ d: entry }), JSON.stringify({ d: data }));
  }
});

test('a text that is not well-formed UTF-16 stays a string: UTF-8 cannot carry a lone surrogate', () => {
  const text = `"lone \ud800 surrogate"`;
  const entry = new JsonText(text);
  entry.pack();
  assert.equal(entry.isPacked, false);
  assert.equal(entry.text, text);
});

test('a parsed text keeps its value when packed; packing twice changes nothing', () => {
  const entry = new JsonText('{"k":[1,2,3]}');
  const value = entry.value;
  entry.pack();
  entry.pack();
  assert.equal(entry.isParsed, true);
  assert.equal(entry.value, value, 'the same value, not parsed again');
  assert.equal(entry.text, '{"k":[1,2,3]}');
});

test("a text's UTF-8 bytes are its packed bytes, packed when asked; none for a text UTF-8 cannot carry", () => {
  for (const text of ['{"a":"plain ascii"}', '{"a":"é 中文 😀"}']) {
    const entry = new JsonText(text);
    const bytes = entry.utf8;
    assert.equal(entry.isPacked, true, 'packed when its bytes are asked for');
    assert.ok(bytes?.equals(Buffer.from(text, 'utf8')));
    assert.equal(entry.utf8, bytes, 'the same bytes at each read');
    assert.equal(entry.text, text);
  }
  assert.equal(new JsonText(`"lone \ud800"`).utf8, undefined);
});
