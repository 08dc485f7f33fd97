// A tenant's cron fires at most once every AGENTPLANE_MIN_CRON_INTERVAL_S (default 60; issue 83):
// before, a six-field schedule with seconds (`* * * * * *`) was taken, and a tenant's 100 crons
// made 100 runs a second outside its request rate. A schedule firing closer is a 422 naming the
// field, the bound and its setting, nothing stored, on create and on update; the shared space
// of a server without auth (no tenant, as for the quotas) keeps every schedule. A cron stored
// before the bound keeps its schedule, can still be changed, and fires once per bound.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { twoTenants, type TwoTenants } from '../../support/twoTenants.ts';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionCrons } from '../../../src/adapters/embedded/collectionCrons.ts';
import { CronService } from '../../../src/domain/crons/cronService.ts';
import { KeyedLock } from '../../../src/domain/keyedLock.ts';

describe('a tenant cron firing more often than AGENTPLANE_MIN_CRON_INTERVAL_S', () => {
  let tenants: TwoTenants;
  before(async () => (tenants = await twoTenants('agent-server')));
  after(() => tenants.app.close());

  const count = async () => (await (await tenants.send(tenants.keyA, 'POST', '/runs/crons/count', {})).json()) as number;

  it('is a 422 naming the bound and its setting, and stores nothing, on create and on update', async () => {
    const { keyA, send } = tenants;
    for (const schedule of ['* * * * * *', '*/10 * * * * *', '0,30 * * * * *']) {
      const refused = await send(keyA, 'POST', '/runs/crons', { assistant_id: 'echo', schedule });
      assert.equal(refused.status, 422, await refused.clone().text());
      const { detail } = (await refused.json()) as { detail: unknown };
      assert.match(JSON.stringify(detail), /once every 60 s \(AGENTPLANE_MIN_CRON_INTERVAL_S\)/);
    }
    assert.equal(await count(), 0);
    // once a minute at a second it names is taken
    const taken = await send(keyA, 'POST', '/runs/crons', { assistant_id: 'echo', schedule: '15 0 1 1 * *' });
    assert.equal(taken.status, 200, await taken.clone().text());
    const { cron_id } = (await taken.json()) as { cron_id: string };
    const patched = await send(keyA, 'PATCH', `/runs/crons/${cron_id}`, { schedule: '*/5 * * * * *' });
    assert.equal(patched.status, 422, await patched.clone().text());
    const [stored] = (await (await send(keyA, 'POST', '/runs/crons/search', {})).json()) as { schedule: string }[];
    assert.equal(stored!.schedule, '15 0 1 1 * *');
  });
});

describe('crons stored before the bound, and the shared space', () => {
  const NOW = new Date('2026-03-02T10:00:30.000Z');
  async function service() {
    const crons = new CollectionCrons(await openJournalStore({ dataDir: null }));
    const resolve = async () => ({ assistant_id: 'assistant-1' });
    return {
      crons,
      cronService: new CronService(
        crons,
        resolve,
        async () => true,
        () => NOW,
        {},
        new KeyedLock(),
        60,
      ),
    };
  }

  it('the shared space of a server without auth keeps a schedule of every second', async () => {
    const { cronService } = await service();
    const created = await cronService.create('', { assistant_id: 'agent', schedule: '* * * * * *' }, null);
    assert.ok(created.ok, JSON.stringify(created));
    assert.equal(created.value.next_run_date, '2026-03-02T10:00:31.000Z');
    const claimed = await cronService.claim(created.value.cron_id, new Date('2026-03-02T10:00:31.010Z'));
    assert.equal(claimed?.next, '2026-03-02T10:00:32.000Z');
  });

  it("a tenant's cron stored with a schedule of every second fires once a minute, and can still be changed", async () => {
    const { crons, cronService } = await service();
    const created = await cronService.create('tenant-a', { assistant_id: 'agent', schedule: '0 * * * * *' }, null);
    assert.ok(created.ok);
    const id = created.value.cron_id;
    // as a store written before the bound holds it
    await crons.replace({ ...(await crons.get(id))!, schedule: '* * * * * *', next_run_date: '2026-03-02T10:00:31.000Z' });
    const claimed = await cronService.claim(id, new Date('2026-03-02T10:00:31.010Z'));
    assert.equal(claimed?.next, '2026-03-02T10:01:31.000Z');
    // a change that leaves the schedule as stored is taken; the schedule is kept
    const paused = await cronService.update('tenant-a', id, { enabled: false });
    assert.ok(paused.ok, JSON.stringify(paused));
    assert.equal((await crons.get(id))?.schedule, '* * * * * *');
  });
});
