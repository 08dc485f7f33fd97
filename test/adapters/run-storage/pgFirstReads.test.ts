// A run's first reads on PostgreSQL (pgFirstReads.ts) are one statement and answer what the
// collections answer (collectionRunStore.ts, three or four statements): the plain
// head's record, the newest root checkpoint by id (not the last written) with its pending
// writes in the order they were stored, and null for what a thread does not have. A claimed
// run's are read by its claim's statement (issue 87).
import { CollectionCheckpoints } from '../../../src/adapters/embedded/collectionCheckpoints.ts';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { emptyCheckpoint } from '@langchain/langgraph';
import { migratedDatabaseUrl } from '../../support/postgres.ts';
import { openPgStore, type PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { ClaimedReads, pgFirstReads } from '../../../src/adapters/run-storage/pgFirstReads.ts';
import { PgRunClaims } from '../../../src/adapters/run-storage/pgRunClaims.ts';
import { PgRunEventLog } from '../../../src/adapters/run-storage/pgRunEventLog.ts';
import { PgRunStore } from '../../../src/adapters/run-storage/pgRunStore.ts';
import { PgCoordination } from '../../../src/adapters/postgres/pgCoordination.ts';
import type { RunRecord } from '../../../src/domain/agent/records.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { CollectionRunStore } from '../../../src/adapters/run-storage/collectionRunStore.ts';
import { StoreCheckpointer } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import { PlainStateStore } from '../../../src/domain/agent/checkpoints/plainState.ts';
import { CollectionPlainCheckpoints } from '../../../src/adapters/embedded/collectionPlainCheckpoints.ts';

const config = (threadId: string, checkpointNs = '', checkpointId?: string) => ({
  configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
});
const id = (n: number) => `1ef00000-0000-6000-8000-${String(n).padStart(12, '0')}`;

let store: PgStore;

before(async () => {
  store = await openPgStore({ url: await migratedDatabaseUrl() });
});

after(async () => {
  await store?.close();
});

/** The statements sent while `work` runs. */
async function counted<T>(work: () => Promise<T>): Promise<{ value: T; statements: number }> {
  let statements = 0;
  const clientQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    statements += 1;
    return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof clientQuery;
  try {
    return { value: await work(), statements };
  } finally {
    pg.Client.prototype.query = clientQuery;
  }
}

async function plainTurn(threadId: string, text: string): Promise<void> {
  const plain = new PlainStateStore(new CollectionPlainCheckpoints(store));
  const parent = await plain.read(threadId);
  const values = { messages: [...(parent?.values.messages ?? []), { type: 'human', content: text, id: `m-${text}` }] };
  const { ops } = plain.commitOps(threadId, parent, values, { checkpointId: id(Date.now() % 1e9), createdAt: new Date().toISOString(), metadata: {} });
  await store.write(ops);
}

test('a thread with nothing: both null, in one statement', async () => {
  const { value, statements } = await counted(() => pgFirstReads(store, 'empty'));
  assert.deepEqual(value, { plainHead: null, newestCheckpoint: null });
  assert.deepEqual(await new CollectionRunStore(store).firstReads('empty', 'langgraph'), value);
  assert.equal(statements, 1);
});

test('a thread with plain state and LangGraph checkpoints: what the collections read, in one statement', async () => {
  const threadId = 't-both';
  await plainTurn(threadId, 'one');
  await plainTurn(threadId, 'two');
  const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
  // the lowest id written last: the newest is still the highest id
  for (const n of [3, 5, 4])
    await saver.put(
      config(threadId),
      // `messages` stored apart (a channel value of its own), `n` in the checkpoint's text
      { ...emptyCheckpoint(), id: id(n), channel_values: { n, messages: [{ type: 'human', content: `m${n}` }] }, channel_versions: { messages: n } },
      { source: 'loop', step: n, parents: {} } as never,
    );
  await saver.putWrites(
    config(threadId, '', id(5)),
    [
      ['b', 2],
      ['a', 1],
    ],
    'task-1',
  );
  await saver.putWrites(config(threadId, '', id(5)), [['c', 3]], 'task-2');
  // another namespace's newer checkpoint is not the root's
  await saver.put(config(threadId, 'child:1'), { ...emptyCheckpoint(), id: id(9), channel_values: {} }, { source: 'loop', step: 9, parents: {} } as never);
  await saver.putWrites(config(threadId, '', id(4)), [['x', 0]], 'task-0');

  const { value, statements } = await counted(() => pgFirstReads(store, threadId));
  assert.equal(statements, 1);
  assert.deepEqual(value, await new CollectionRunStore(store).firstReads(threadId, 'langgraph'));
  assert.equal(value.newestCheckpoint?.record.checkpoint_id, id(5));
  assert.deepEqual(Object.keys(value.newestCheckpoint?.values ?? {}), ['messages'], 'the values the newest checkpoint names, in the same statement');
  assert.match(value.newestCheckpoint?.values.messages.text ?? '', /"m5"/);
  assert.deepEqual(
    value.newestCheckpoint?.writes.map((w) => [w.task_id, w.channel]),
    [
      ['task-1', 'b'],
      ['task-1', 'a'],
      ['task-2', 'c'],
    ],
  );
  assert.deepEqual(
    value.plainHead?.added.map((m) => m.content),
    ['two'],
  );
});

test("a newest checkpoint whose value is a tail of its parents': the whole value, joined from its chain, in one statement", async () => {
  const threadId = 't-chain';
  const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
  const message = (n: number) => ({ type: 'human', content: `m${n} `.padEnd(5_000, 'x') });
  const messages = [message(1)];
  let parent: string | undefined;
  for (const n of [1, 2, 3]) {
    if (n > 1) messages.push(message(n));
    await saver.put(
      config(threadId, '', parent),
      { ...emptyCheckpoint(), id: id(n), channel_values: { messages: [...messages] }, channel_versions: { messages: n } },
      { source: 'loop', step: n, parents: {} } as never,
    );
    parent = id(n);
  }
  const { value, statements } = await counted(() => pgFirstReads(store, threadId));
  assert.equal(statements, 1);
  assert.deepEqual(value.newestCheckpoint?.record.channels?.messages.base, [id(1), id(2)], 'stored as a tail of the two before it');
  assert.deepEqual(value, await new CollectionRunStore(store).firstReads(threadId, 'langgraph'));
  assert.deepEqual(JSON.parse(value.newestCheckpoint?.values.messages.text ?? ''), messages);
});

test("a claimed run's first reads come with its claim: its start reads the same without a statement, once", async () => {
  const threadId = 't-claimed';
  await store.collection<{ thread_id: string }>('threads').put(threadId, { thread_id: threadId });
  await plainTurn(threadId, 'before');
  const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
  await saver.put(
    config(threadId),
    { ...emptyCheckpoint(), id: id(7), channel_values: { messages: [{ type: 'human', content: 'm7' }] }, channel_versions: { messages: 1 } },
    { source: 'loop', step: 1, parents: {} } as never,
  );
  await saver.putWrites(config(threadId, '', id(7)), [['a', 1]], 'task-1');
  await store.collection<RunRecord>('runs').put('r-claimed', pendingRun('r-claimed', threadId));
  const coordination = new PgCoordination({ url: store.url });
  await coordination.ready();
  try {
    const claimedReads = new ClaimedReads();
    const claims = new PgRunClaims({ store, coordination, leaseMs: 60_000, events: new PgRunEventLog(store, coordination), warn: () => {}, claimedReads });
    const taken = await counted(() => claims.claim({ status: 'running', updated_at: new Date().toISOString() }, 10));
    assert.deepEqual(
      taken.value.claims.map((c) => c.run.run_id),
      ['r-claimed'],
    );
    assert.equal(taken.statements, 1, 'the claim and the reads: one statement');
    const runs = new PgRunStore(store, claimedReads);
    const atStart = await counted(() => runs.firstReads(threadId));
    assert.equal(atStart.statements, 0);
    assert.deepEqual(atStart.value, await pgFirstReads(store, threadId), 'what the statement of its own reads');
    assert.equal(atStart.value.newestCheckpoint?.record.checkpoint_id, id(7));
    assert.deepEqual(
      atStart.value.plainHead?.added.map((m) => m.content),
      ['before'],
    );
    // taken once: a later start reads anew
    assert.equal((await counted(() => runs.firstReads(threadId))).statements, 1);
  } finally {
    await coordination.close();
  }
});

test("the statement's plan is made once per connection and kept, not made anew at every run", async () => {
  // one connection, so the prepared statement and PostgreSQL's record of its plans are that connection's
  const alone = await openPgStore({ url: await migratedDatabaseUrl(), poolSize: 1 });
  try {
    for (let i = 0; i < 10; i++) await pgFirstReads(alone, `planned-${i % 3}`);
    const { rows } = await alone.query<{ generic_plans: string; custom_plans: string }>(
      `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'agentplane_first_reads'`,
      [],
    );
    // PostgreSQL plans a prepared statement with its parameters' values five times, then
    // keeps its generic plan unless that one is costed higher
    assert.equal(Number(rows[0].custom_plans), 5, JSON.stringify(rows));
    assert.equal(Number(rows[0].generic_plans), 5, JSON.stringify(rows));
  } finally {
    await alone.close();
  }
});
