// The cron service's rules in process, over the crons kept in memory (the embedded store's
// collection, which holds to the same contract as PostgreSQL's: test/support/cronsRepositoryContract.ts):
// a bad schedule or a missing assistant or thread stores nothing, another scope's cron is
// missing, and a due time is fired once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionCrons } from '../../../src/adapters/embedded/collectionCrons.ts';
import { CronService } from '../../../src/domain/crons/cronService.ts';

const NOW = new Date('2026-03-02T10:00:30.000Z');

async function service() {
  const crons = new CollectionCrons(await openJournalStore({ dataDir: null }));
  const cronService = new CronService(
    crons,
    async (_scope, idOrGraph) => (idOrGraph === 'agent' || idOrGraph === 'assistant-1' ? { assistant_id: 'assistant-1' } : undefined),
    async (scope, threadId) => scope === 'tenant-a' && threadId === 'thread-a',
    () => NOW,
  );
  return { crons, cronService };
}

test('a bad schedule, an unknown assistant or another scope’s thread is refused and stores nothing', async () => {
  const { crons, cronService } = await service();
  const bad = await cronService.create('tenant-a', { assistant_id: 'agent', schedule: 'every minute' }, null);
  assert.ok(!bad.ok && bad.failure.kind === 'unprocessable', JSON.stringify(bad));
  assert.deepEqual(bad.failure.data, { field: 'schedule' });
  const unknown = await cronService.create('tenant-a', { assistant_id: 'nobody', schedule: '* * * * *' }, null);
  assert.ok(!unknown.ok && unknown.failure.kind === 'not_found');
  const foreignThread = await cronService.create('tenant-b', { assistant_id: 'agent', schedule: '* * * * *' }, 'thread-a');
  assert.ok(!foreignThread.ok && foreignThread.failure.kind === 'not_found');
  assert.equal(await crons.count({ scope: 'tenant-a' }), 0);
  assert.equal(await crons.count({ scope: 'tenant-b' }), 0);
});

test('another scope’s cron is missing to update and delete, and stays as it was', async () => {
  const { crons, cronService } = await service();
  const created = await cronService.create('tenant-a', { assistant_id: 'agent', schedule: '* * * * *' }, null);
  assert.ok(created.ok);
  const id = created.value.cron_id;
  const updated = await cronService.update('tenant-b', id, { schedule: '0 * * * *' });
  assert.ok(!updated.ok && updated.failure.kind === 'not_found');
  assert.equal(await cronService.delete('tenant-b', id), false);
  assert.equal((await crons.get(id))?.schedule, '* * * * *');
  assert.deepEqual(await cronService.search('tenant-b', {}), []);
  assert.equal(await cronService.delete('tenant-a', id), true);
});

test('a due time is fired once: the claim moves the next one past now', async () => {
  const { crons, cronService } = await service();
  const created = await cronService.create('tenant-a', { assistant_id: 'agent', schedule: '* * * * *' }, null);
  assert.ok(created.ok);
  assert.equal(created.value.next_run_date, '2026-03-02T10:01:00.000Z');
  const at = new Date('2026-03-02T10:01:05.000Z');
  const claimed = await cronService.claim(created.value.cron_id, at);
  assert.deepEqual(claimed && [claimed.fired.next_run_date, claimed.next], ['2026-03-02T10:01:00.000Z', '2026-03-02T10:02:00.000Z']);
  assert.equal(await cronService.claim(created.value.cron_id, at), undefined);
  assert.equal((await crons.get(created.value.cron_id))?.next_run_date, '2026-03-02T10:02:00.000Z');
  // a disabled cron has no due time and is never claimed
  const disabled = await cronService.update('tenant-a', created.value.cron_id, { enabled: false });
  assert.ok(disabled.ok && disabled.value.next_run_date === null);
  assert.equal(await cronService.claim(created.value.cron_id, new Date('2026-03-02T11:00:00.000Z')), undefined);
});
