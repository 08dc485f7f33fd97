// How often a tenant's cron may fire (AGENTPLANE_MIN_CRON_INTERVAL_S, issue 83): a schedule's
// seconds field may name seconds closer than the bound allows, which is refused saying so; a
// schedule stored before the bound fires no more often than it, at the due times it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextDue, scheduleProblem } from '../../../src/domain/crons/schedule.ts';

test('a schedule firing closer than the bound is refused naming the bound and its setting; one second a minute, or five fields, is not', () => {
  for (const fine of ['* * * * *', '*/5 * * * *', '0 * * * * *', '30 */2 * * * *', '@hourly', '0 0 9 * * 1-5 2030']) {
    assert.equal(scheduleProblem(fine, null, 60), null, fine);
  }
  for (const [often, apart] of [
    ['* * * * * *', 1],
    ['*/10 * * * * *', 10],
    ['0,30 * * * * *', 30],
    // the last second of a minute and the first of the next are a second apart
    ['0,59 0 9 * * *', 1],
    ['? * * * * *', 1],
  ] as const) {
    const problem = scheduleProblem(often, 'Europe/Paris', 60);
    assert.ok(problem, often);
    assert.match(problem, new RegExp(`fires ${apart} s apart.*once every 60 s \\(AGENTPLANE_MIN_CRON_INTERVAL_S\\)`));
  }
  // the bound, lowered, lets closer seconds through
  assert.equal(scheduleProblem('0,30 * * * * *', null, 30), null);
  assert.equal(scheduleProblem('* * * * * *', null, 1), null);
  // a schedule that cannot be parsed is refused as before
  assert.ok(scheduleProblem('every minute', null, 60));
});

test('a stored schedule naming every second fires once per bound after the due time that fired, on a due time it names', () => {
  const due = new Date('2026-03-02T10:00:07.000Z');
  const at = new Date('2026-03-02T10:00:07.020Z');
  assert.equal(nextDue('* * * * * *', null, at)?.toISOString(), '2026-03-02T10:00:08.000Z', 'unbounded');
  assert.equal(nextDue('* * * * * *', null, at, null, due, 60)?.toISOString(), '2026-03-02T10:01:07.000Z');
  assert.equal(nextDue('*/10 * * * * *', null, at, null, due, 60)?.toISOString(), '2026-03-02T10:01:10.000Z');
  // a minute's schedule keeps its due times: the next minute's is 60 s after
  assert.equal(
    nextDue('* * * * *', null, new Date('2026-03-02T10:00:00.030Z'), null, new Date('2026-03-02T10:00:00.000Z'), 60)?.toISOString(),
    '2026-03-02T10:01:00.000Z',
  );
  // a due time missed long ago: the next after now
  assert.equal(nextDue('* * * * * *', null, at, null, new Date('2026-03-01T00:00:00.000Z'), 60)?.toISOString(), '2026-03-02T10:00:08.000Z');
});

test('a schedule the runner takes but its pattern refuses is a problem in a sentence, not a throw (" :0" was a 500)', () => {
  const problem = scheduleProblem(' :0', null);
  assert.equal(typeof problem, 'string');
  assert.match(problem!, /parts are required/);
});
