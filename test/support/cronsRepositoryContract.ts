// What every CronsRepository answers, whichever backend keeps the crons: the embedded store's
// collection (test/adapters/embedded/collectionCrons.test.ts) and PostgreSQL's table with its
// searches in SQL (test/adapters/postgres/pgCrons.test.ts) run this one body.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { CronRecord, CronsRepository } from '../../src/domain/ports/cronsRepository.ts';

const AT = '2026-01-01T00:00:00.000Z';

function cron(id: string, fields: Partial<CronRecord> = {}): CronRecord {
  return {
    scope: 'tenant-a',
    cron_id: id,
    assistant_id: 'assistant-1',
    thread_id: null,
    schedule: '* * * * *',
    timezone: null,
    end_time: null,
    created_at: AT,
    updated_at: AT,
    payload: {},
    user_id: null,
    next_run_date: '2026-01-01T00:01:00.000Z',
    metadata: {},
    enabled: true,
    on_run_completed: 'delete',
    ...fields,
  };
}

const ids = (crons: CronRecord[]) => crons.map((c) => c.cron_id);

export function cronsRepositoryContract(open: () => Promise<CronsRepository>): void {
  it('creates, reads, replaces and deletes a cron by its id, whatever scope holds it', async () => {
    const crons = await open();
    await crons.create(cron('c1', { scope: 'tenant-b' }));
    assert.equal((await crons.get('c1'))?.scope, 'tenant-b');
    await crons.replace({ ...cron('c1', { scope: 'tenant-b' }), schedule: '0 * * * *' });
    assert.equal((await crons.get('c1'))?.schedule, '0 * * * *');
    assert.equal(await crons.delete('c1'), true);
    assert.equal(await crons.get('c1'), undefined);
    assert.equal(await crons.delete('c1'), false);
  });

  it('claims a due firing once: the next due time is stored, a second claim at the same time gets nothing', async () => {
    const crons = await open();
    await crons.create(cron('due'));
    const now = new Date('2026-01-01T00:01:30.000Z');
    const claimed = await crons.claimDue('due', now, (c) => (c.cron_id === 'due' ? '2026-01-01T00:02:00.000Z' : null));
    assert.deepEqual(claimed && { fired: claimed.fired.next_run_date, next: claimed.next }, {
      fired: '2026-01-01T00:01:00.000Z',
      next: '2026-01-01T00:02:00.000Z',
    });
    assert.equal((await crons.get('due'))?.next_run_date, '2026-01-01T00:02:00.000Z');
    assert.equal(await crons.claimDue('due', now, () => null), undefined);
  });

  it('claims nothing of a cron that is not due, disabled, without a due time or gone, and changes none', async () => {
    const crons = await open();
    await crons.create(cron('later', { next_run_date: '2026-01-01T00:05:00.000Z' }));
    await crons.create(cron('off', { enabled: false }));
    await crons.create(cron('done', { next_run_date: null }));
    const now = new Date('2026-01-01T00:01:30.000Z');
    for (const id of ['later', 'off', 'done', 'missing']) assert.equal(await crons.claimDue(id, now, () => 'never'), undefined, id);
    assert.equal((await crons.get('later'))?.next_run_date, '2026-01-01T00:05:00.000Z');
    assert.equal((await crons.get('off'))?.next_run_date, '2026-01-01T00:01:00.000Z');
  });

  it("searches and counts one scope's crons by assistant, thread, enabled and metadata, sorted and paged", async () => {
    const crons = await open();
    await crons.create(cron('a', { created_at: '2026-01-01T00:00:03.000Z', metadata: { team: 'x' } }));
    await crons.create(cron('b', { created_at: '2026-01-01T00:00:01.000Z', thread_id: 'thread-1', on_run_completed: null }));
    await crons.create(cron('c', { created_at: '2026-01-01T00:00:02.000Z', enabled: false, next_run_date: null, metadata: { team: 'x', more: 1 } }));
    await crons.create(cron('d', { created_at: '2026-01-01T00:00:04.000Z', assistant_id: 'assistant-2' }));
    await crons.create(cron('other', { scope: 'tenant-b', metadata: { team: 'x' } }));
    const page = { sortBy: 'created_at' as const, order: 'asc' as const, offset: 0, limit: 10 };
    assert.deepEqual(ids(await crons.search({ scope: 'tenant-a' }, page)), ['b', 'c', 'a', 'd']);
    assert.deepEqual(ids(await crons.search({ scope: 'tenant-a' }, { ...page, order: 'desc', offset: 1, limit: 2 })), ['a', 'c']);
    assert.deepEqual(ids(await crons.search({ scope: 'tenant-a', assistant_id: 'assistant-1', enabled: true }, page)), ['b', 'a']);
    assert.deepEqual(ids(await crons.search({ scope: 'tenant-a', thread_id: 'thread-1' }, page)), ['b']);
    assert.deepEqual(ids(await crons.search({ scope: 'tenant-a', metadata: { team: 'x' } }, page)), ['c', 'a']);
    // a missing value sorts first ascending, last descending
    assert.deepEqual(ids(await crons.search({ scope: 'tenant-a' }, { ...page, sortBy: 'next_run_date' })).slice(0, 1), ['c']);
    assert.deepEqual(ids(await crons.search({ scope: 'tenant-a' }, { ...page, sortBy: 'next_run_date', order: 'desc' })).at(-1), 'c');
    assert.equal(await crons.count({ scope: 'tenant-a' }), 4);
    assert.equal(await crons.count({ scope: 'tenant-a', metadata: { team: 'x' } }), 2);
    assert.equal(await crons.count({ scope: 'tenant-c' }), 0);
  });

  it('answers the enabled crons with a due time, of every scope', async () => {
    const crons = await open();
    await crons.create(cron('on'));
    await crons.create(cron('elsewhere', { scope: 'tenant-b' }));
    await crons.create(cron('off', { enabled: false }));
    await crons.create(cron('finished', { next_run_date: null }));
    assert.deepEqual(ids(await crons.due()).sort(), ['elsewhere', 'on']);
  });
}
