// A log read for what it holds now (`join` with `present`, as a protocol command asks whether a
// running run has asked for input) ends at the events there are, instead of waiting for the
// next: a run that keeps streaming held such a command for as long as it ran (issue 86's run.start).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryRunEventLog } from '../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { PgRunEventLog } from '../../../src/adapters/run-storage/pgRunEventLog.ts';
import type { PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { unsharedCoordination as coordination } from '../../support/pgCoordinationStub.ts';
import type { RunEventLog } from '../../../src/domain/ports/runEventLog.ts';

/** The ids a present read of `runId` gives, failing if it has not ended within 2 s. */
async function presentIds(log: RunEventLog, runId: string, lastEventId?: string): Promise<string[]> {
  const read = (async () => {
    const ids: string[] = [];
    for await (const event of log.join(runId, { present: true, lastEventId })) ids.push(event.id);
    return ids;
  })();
  const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the present read waited for more events')), 2_000).unref());
  return Promise.race([read, late]);
}

describe('a run event log read for what it holds now', () => {
  it('in memory: gives the events so far of a live log and ends; a later read gives those since', async () => {
    const log = new InMemoryRunEventLog();
    await log.open('live', 'owner');
    log.publish('live', 'metadata', { run_id: 'live' });
    log.publish('live', 'values', { a: 1 });
    assert.deepEqual(await presentIds(log, 'live'), ['0', '1']);
    log.publish('live', 'values', { a: 2 });
    assert.deepEqual(await presentIds(log, 'live', '1'), ['2']);
    assert.deepEqual(await presentIds(log, 'live', '2'), []);
    assert.deepEqual(await presentIds(log, 'unknown'), []);
  });

  it('on PostgreSQL: a run executing elsewhere is read from the table once, without waiting for its next rows', async () => {
    const rows = [
      { n: 0, event: 'metadata', data: { run_id: 'elsewhere' } },
      { n: 1, event: 'values', data: { a: 1 } },
    ];
    const query = async (sql: string, params: unknown[] = []) => {
      if (sql.includes('FROM agentplane_run_logs')) return { rows: [{ owner: 'owner' }], rowCount: 1 };
      if (sql.includes('FROM agentplane_run_events')) {
        const after = Number(params[1]);
        const found = rows.filter((row) => row.n > after);
        return { rows: found, rowCount: found.length };
      }
      return { rows: [], rowCount: 0 };
    };
    const store = { query, transaction: async (work: (client: { query: typeof query }) => Promise<unknown>) => work({ query }) } as unknown as PgStore;
    const log = new PgRunEventLog(store, coordination, () => {});
    assert.deepEqual(await presentIds(log, 'elsewhere'), ['0', '1']);
    assert.deepEqual(await presentIds(log, 'elsewhere', '1'), []);
  });

  it('on PostgreSQL: a run executing here is read from its live log, ahead of the table', async () => {
    const query = async () => ({ rows: [{ next: 0 }], rowCount: 0 });
    const store = { query, transaction: async (work: (client: { query: typeof query }) => Promise<unknown>) => work({ query }) } as unknown as PgStore;
    const log = new PgRunEventLog(store, coordination, () => {});
    await log.open('here', 'owner');
    await log.begin('here', () => {}, 1);
    log.publish('here', 'metadata', { run_id: 'here' });
    log.publish('here', 'values', { a: 1 });
    assert.deepEqual(await presentIds(log, 'here'), ['0', '1']);
  });
});
