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
