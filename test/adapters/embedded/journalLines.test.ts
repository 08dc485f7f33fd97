// A start scans the journal's lines rather than parsing them (journalLines.ts, issue 91): every
// op must come out as readSegment parses it, each located value must be the exact bytes of its
// JSON in the file, whatever its strings hold (escapes, brackets, quotes, multi-byte text) and
// wherever the file's chunks end; lines that do not scan are parsed, bad and torn ones named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { lineIndexOf, readLineIndex, scanSegment, scanLine, topLevelField, writeLineIndex } from '../../../src/adapters/embedded/journalLines.ts';
import { readSegment } from '../../../src/adapters/embedded/dataDir.ts';
import { tempDir } from '../../support/server.ts';

const tricky = [
  { text: 'brackets ] } [ { and "quotes" and \\ backslashes \\" and ],["x","y",1,{' },
  { nested: JSON.stringify({ a: ['"]', { b: '\\' }] }), emoji: 'héllo — 😀 ☃', empty: {}, list: [[], [{}], [[['deep']]]] },
  { n: -1.5e-3, t: true, f: false, z: null, s: '' },
  [1, 2, { array: 'value' }],
];

function lines(): unknown[][] {
  const out: unknown[][] = [];
  for (let i = 0; i < 60; i += 1) {
    const value = tricky[i % tricky.length]!;
    out.push([['runs', `run-"${i}"\\`, i + 1, value]]);
    out.push([
      ['checkpoints', `t-${i}`, 1000 + i, { i, pad: 'x'.repeat(i * 97), value }],
      ['notes', `n-${i}`, 2000 + i, { i, value }],
      ['runs', `gone-${i}`],
    ]);
  }
  return out;
}

const paged = (name: string) => name === 'runs' || name === 'checkpoints';

function written(dir: string, text: string): { number: number; file: string } {
  const file = path.join(dir, '00000001.log');
  fs.writeFileSync(file, text);
  return { number: 1, file };
}

test('every op is scanned as readSegment parses it, each located value the exact bytes of its JSON, in chunks of any size', () => {
  const dir = tempDir('journal-lines-');
  const segment = written(
    dir,
    lines()
      .map((line) => `${JSON.stringify(line)}\n`)
      .join(''),
  );
  const bytes = fs.readFileSync(segment.file);
  const parsed = readSegment(segment);
  for (const chunk of [7, 100, 4096, 1 << 20]) {
    const scanned = scanSegment(segment, (name) => !paged(name), chunk);
    assert.equal(scanned.lines.length, parsed.batches.length, `chunk ${chunk}: the same lines`);
    scanned.lines.forEach((line, i) => {
      const batch = parsed.batches[i]!;
      assert.equal(line.length, batch.length);
      line.forEach((op, j) => {
        const expected = batch[j]!;
        assert.deepEqual([op.collection, op.id], [expected[0], expected[1]]);
        if (expected.length === 2) return assert.equal(op.seq, undefined, 'a delete has no seq');
        assert.equal(op.seq, expected[2]);
        if (paged(op.collection)) {
          assert.equal(op.value, undefined, 'a paged value is left in the file');
          assert.deepEqual(JSON.parse(bytes.toString('utf8', op.at, op.at + op.len)), expected[3], `chunk ${chunk}: ${op.collection}/${op.id} located`);
        } else assert.deepEqual(op.value, expected[3], 'a value read whole is parsed');
      });
    });
  }
});

test('a line that does not scan is parsed; bad lines and a torn last line are named as readSegment names them', () => {
  const dir = tempDir('journal-lines-bad-');
  const text = [
    '[ ["runs", "spaced", 1, {"a": 1}] ]\n', // valid JSON, not as JSON.stringify writes it
    'not json\n',
    '[["runs","r",2,{"a":[1,2}]]\n', // brackets that do not match
    '\n',
    '[["runs","ok",3,{"b":"]"}]]\n',
    '[["runs","torn",4,{"c":',
  ].join('');
  const segment = written(dir, text);
  const parsed = readSegment(segment);
  const scanned = scanSegment(segment, () => false, 16);
  assert.deepEqual(scanned.bad, parsed.bad);
  assert.deepEqual(scanned.torn, parsed.torn);
  assert.deepEqual(
    scanned.lines.map((line) => line.map((op) => [op.id, op.seq, op.value ?? JSON.parse(text.slice(op.at, op.at + op.len))])),
    [[['spaced', 1, { a: 1 }]], [['ok', 3, { b: ']' }]]],
  );
});

test('a line whose shape differs from a batch is not scanned', () => {
  for (const text of [
    '[]',
    '[["runs"]]',
    '[["runs","a",1]]',
    '[["runs","a","1",{}]]',
    '[["runs","a",1,"s"]]',
    '[["runs","a",1,{}],]',
    '[["runs","a",1,{}]]x',
    '{"runs":1}',
  ])
    assert.equal(
      scanLine(Buffer.from(text), 0, text.length, () => false),
      null,
      text,
    );
});

test('a journal file’s line index gives its ops as the scan does, and is not used once the file has changed', () => {
  const dir = tempDir('journal-lines-index-');
  const segment = written(
    dir,
    lines()
      .map((line) => `${JSON.stringify(line)}\n`)
      .join(''),
  );
  const whole = (name: string) => !paged(name);
  writeLineIndex(segment);
  assert.deepEqual(readLineIndex(segment, whole)?.lines, scanSegment(segment, whole).lines, 'the same ops, values read whole parsed');
  fs.appendFileSync(segment.file, `${JSON.stringify([['notes', 'late', 9999, { n: 1 }]])}\n`);
  assert.equal(readLineIndex(segment, whole), null, 'a file grown since is scanned');
  fs.writeFileSync(lineIndexOf(segment.file), '{"version":1,');
  assert.equal(readLineIndex(segment, whole), null, 'a list that does not read is not used');
});

test('a top-level field read from the first bytes of a value is the parsed value’s, or unknown until its bytes are there; never a nested one', () => {
  const values: Record<string, unknown>[] = [
    { status: 'pending', run_id: 'r' },
    { run_id: 'r', kwargs: { status: 'nested', list: [{ status: 'deeper' }] }, status: 'success' },
    { note: 'a "status":"fake", and \\" escapes ]}', 'sta"tus': 1, status: 'héllo — 😀' },
    { n: -1.5e-3, t: true, f: false, z: null, status: 7, after: {} },
    { status: { nested: ['"}'] } },
    { other: 'x', empty: {}, list: [] },
    {},
    ...tricky.filter((v) => !Array.isArray(v)).map((v) => v as Record<string, unknown>),
  ];
  for (const value of values) {
    const buf = Buffer.from(JSON.stringify(value));
    for (const field of ['status', 'sta"tus', 'missing']) {
      const truth = Object.hasOwn(value, field) ? { value: value[field] } : null;
      assert.deepEqual(topLevelField(buf, field), truth, `${field} of ${buf.toString()}`);
      for (let end = 0; end < buf.length; end += 1) {
        const seen = topLevelField(buf.subarray(0, end), field);
        if (seen !== undefined) assert.deepEqual(seen, truth, `${field} of ${buf.toString()} cut at ${end}`);
      }
    }
  }
  // not an object as JSON.stringify writes one: unknown, the caller parses
  assert.equal(topLevelField(Buffer.from('[1,2]'), 'status'), undefined);
  assert.equal(topLevelField(Buffer.from('{ "status": "x" }'), 'status'), undefined);
});
