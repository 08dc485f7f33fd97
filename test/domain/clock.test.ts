import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { isoOf, msOfIso, nowIso } from '../../src/domain/clock.ts';

test('isoOf writes a time as toISOString does, the same text for the same millisecond', () => {
  for (const ms of [0, 1_700_000_000_123, 1_700_000_000_124, 1_700_000_000_123, -1, 8.64e15]) assert.equal(isoOf(ms), new Date(ms).toISOString());
});

test('msOfIso gives the milliseconds of a time isoOf writes, NaN for any other text', () => {
  assert.equal(msOfIso('2026-12-01T05:00:00.123Z'), Date.parse('2026-12-01T05:00:00.123Z'));
  // texts that parse but do not print back as they are: kept as text by the store
  for (const odd of ['2026-12-01T05:00:00.123+00:00', '2026-02-30T05:00:00.000Z', '2026-12-01T05:00:00Z', 'not a time at all, 24 chZ', ''])
    assert.ok(Number.isNaN(msOfIso(odd)), odd);
});

test('a time just made is known to msOfIso without a parse (a created record packs its times)', () => {
  const made = nowIso();
  const parse = mock.method(Date, 'parse');
  try {
    assert.equal(msOfIso(made), new Date(made).getTime());
    assert.equal(msOfIso(made), new Date(made).getTime());
    assert.equal(parse.mock.callCount(), 0);
  } finally {
    parse.mock.restore();
  }
});

/** The times of a sweep: the edges of the years isoOf writes itself, leap days, and a spread over the centuries, by a fixed step. */
const sweep = (): number[] => {
  const times = [0, -1, 1, -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000];
  times.push(951_782_400_000, 951_868_799_999, 1_709_164_800_000);
  for (let ms = -62_167_219_200_000; ms < 253_402_300_800_000; ms += 7_777_777_777_777) times.push(ms, ms + 86_399_999);
  for (let ms = 1_700_000_000_000; ms < 1_900_000_000_000; ms += 123_456_789) times.push(ms);
  return times;
};

test("isoOf and msOfIso write and read a time without a Date: a record's times are written back at each read of its fields (issue 91)", () => {
  const times = sweep();
  const texts = times.map((ms) => new Date(ms).toISOString());
  const toIso = mock.method(Date.prototype, 'toISOString');
  const parse = mock.method(Date, 'parse');
  try {
    times.forEach((ms, i) => {
      assert.equal(isoOf(ms), texts[i], String(ms));
      isoOf(0);
      // the texts of four-digit years read back; the others (a sign, six digits) are not what isoOf writes itself
      assert.equal(msOfIso(texts[i]!), texts[i]!.length === 24 ? ms : NaN, texts[i]);
    });
    // toISOString left to the times beyond the years 0000–9999
    const within = (call: { this: unknown }) => (call.this as Date).getTime() >= -62_167_219_200_000 && (call.this as Date).getTime() <= 253_402_300_799_999;
    assert.equal(toIso.mock.calls.filter(within).length, 0);
    assert.equal(parse.mock.callCount(), 0);
  } finally {
    toIso.mock.restore();
    parse.mock.restore();
  }
  // each field in its range, as Date.parse and toISOString would have it
  for (const odd of [
    '2026-02-29T00:00:00.000Z',
    '1900-02-29T00:00:00.000Z',
    '2026-04-31T00:00:00.000Z',
    '2026-12-01T24:00:00.000Z',
    '2026-13-01T00:00:00.000Z',
    '2026-00-01T00:00:00.000Z',
    '2026-12-00T00:00:00.000Z',
    '2026-12-01T00:60:00.000Z',
    '2026-12-01T00:00:60.000Z',
    '2026-12-01T00:00:00.-01Z',
    '2026-12-01 00:00:00.000Z',
  ])
    assert.ok(Number.isNaN(msOfIso(odd)), odd);
  for (const leap of ['2024-02-29T00:00:00.000Z', '2000-02-29T23:59:59.999Z', '0000-02-29T12:00:00.000Z', '0000-01-01T00:00:00.000Z'])
    assert.equal(msOfIso(leap), Date.parse(leap), leap);
});
