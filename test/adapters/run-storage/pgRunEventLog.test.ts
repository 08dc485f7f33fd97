// PgRunEventLog against a database whose events table refuses every INSERT (the pool stubbed:
// no PostgreSQL needed to make it fail): after its tries a batch is never dropped silently.
// The run executing is told (the engine starts it again as a new attempt, see
// runEngine.test.ts), and a log whose `end` could not be stored says so to whoever ends it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PgRunEventLog } from '../../../src/adapters/run-storage/pgRunEventLog.ts';
import type { PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { unsharedCoordination } from '../../support/pgCoordinationStub.ts';

const refused = new Error('permission denied for table agentplane_run_events');

/** A store whose INSERTs into the events table fail; everything else answers as an empty database. */
function refusingStore(inserts: string[]): PgStore {
  const query = async (sql: string) => {
    if (sql.includes('INSERT INTO agentplane_run_events')) {
      inserts.push(sql);
      throw refused;
    }
    if (sql.includes('AS next')) return { rows: [{ next: 0 }], rowCount: 1 };
    return { rows: [], rowCount: 0 };
  };
  return { query, transaction: async (work: (client: { query: typeof query }) => Promise<unknown>) => work({ query }) } as unknown as PgStore;
}

const coordination = unsharedCoordination;

const within = <T>(promise: Promise<T>, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing after 10 s`)), 10_000).unref())]);

describe('PgRunEventLog when its events cannot be stored', () => {
  it('tells the run executing here, after its tries, that a batch of its events is lost', async () => {
    const inserts: string[] = [];
    const events = new PgRunEventLog(refusingStore(inserts), coordination, () => {}, { writeAttempts: 3, retryMs: 1 });
    const lost = new Promise<unknown>((resolve) => void events.begin('run-1', resolve, 1));
    events.publish('run-1', 'metadata', { run_id: 'run-1', attempt: 1 });
    events.publish('run-1', 'values', { a: 1 });
    assert.equal(await within(lost, 'the run was never told'), refused);
    assert.equal(inserts.length, 3, 'tried three times, one batch');
  });

  it('rejects ending a log whose last events could not be stored, instead of reporting it ended', async () => {
    const events = new PgRunEventLog(refusingStore([]), coordination, () => {}, { writeAttempts: 2, retryMs: 1 });
    await events.begin('run-2', () => {}, 1);
    events.publish('run-2', 'values', { a: 1 });
    await assert.rejects(within(events.end('run-2'), 'end'), refused);
  });
});
