// A cron's end_time in year 0000 (RFC 3339 allows it: 1 BC) is kept on both stores. On
// PostgreSQL its creation answered 500 ("date/time field value out of range": its ISO input
// has no year 0) while the embedded store kept it (issue 84: a value one store takes and the
// other refuses).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { BACKENDS } from '../../support/bothStores.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';

for (const backend of BACKENDS) {
  describe(`a cron ending in year 0000 (${backend})`, () => {
    let app: InProcessApp;
    before(async () => {
      app = await areaApp('agent-server', { dataDir: null, env: backend === 'postgres' ? { DATABASE_URL: await migratedDatabaseUrl() } : {} });
    });
    after(() => app?.close());

    test('is created, read back as sent and found by a search', async () => {
      for (const end_time of ['0000-01-01T00:00:00Z', '0000-06-30T12:00:00+02:00']) {
        const created = await app.api('/runs/crons', { method: 'POST', json: { assistant_id: 'echo', schedule: '0 0 1 1 *', end_time } });
        assert.equal(created.status, 200, await created.clone().text());
        const cron = (await created.json()) as { cron_id: string; end_time: string };
        assert.equal(cron.end_time, end_time);
        const found = await app.api('/runs/crons/search', { method: 'POST', json: {} });
        assert.equal(found.status, 200);
        assert.ok(((await found.json()) as { cron_id: string }[]).some((c) => c.cron_id === cron.cron_id));
      }
    });
  });
}
