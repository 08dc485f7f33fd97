// What a run's log and claim cost on a real PostgreSQL (issue 31: statements per run). Each
// write that other replicas must hear of carries its NOTIFY in the same statement, so opening
// a run's log, appending a batch of its events, ending it and giving its claim up are one
// statement each (a short run's events go with its end: issue 87), and so is a claim (the look-up, the runs started with their claims taken) — and a replica elsewhere is still woken by each and reads the whole log.
// Statements are counted client-side, at pg's Client.query, which every pool goes through.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPgStore, type PgStore } from '../../../src/adapters/postgres/pgStore.ts';
import { PgCoordination } from '../../../src/adapters/postgres/pgCoordination.ts';
import { PgRunEventLog } from '../../../src/adapters/run-storage/pgRunEventLog.ts';
import { PgRunClaims } from '../../../src/adapters/run-storage/pgRunClaims.ts';
import type { RunRecord } from '../../../src/domain/agent/records.ts';
import type { RunEvent } from '../../../src/domain/agent/runs/runEvent.ts';
import type { Claim } from '../../../src/domain/ports/runClaims.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';
import { isByTheClock, tapStatements } from '../../support/pgStatements.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { JsonText } from '../../../src/shared/jsonText.ts';

/** The channels the backends NOTIFY on (pgRunEventLog.ts, pgRunClaims.ts). */
const EVENTS_CHANNEL = 'agentplane_run_events';
const CLAIMABLE_CHANNEL = 'agentplane_runs_claimable';

let sent: string[] | null = null;
let restoreClient: (() => void) | undefined;
/** The statements sent while `work` runs (and until `until` settles, when given). */
async function statementsOf(work: () => Promise<unknown>, until?: Promise<unknown>): Promise<string[]> {
  sent = [];
  try {
    await work();
    await until;
    return sent;
  } finally {
    sent = null;
  }
}

const within = <T>(promise: Promise<T>, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing after 20 s`)), 20_000).unref())]);

describe('a run on PostgreSQL: one statement per write, its wake-up with it', () => {
  let store: PgStore;
  let writer: PgCoordination;
  let reader: PgCoordination;
  let written: PgRunEventLog;
  let elsewhere: PgRunEventLog;
  /** Payloads the reading replica heard, per channel. */
  const heard = new Map<string, ((payload: string) => void)[]>();
  const hear = (channel: string, payload: string) =>
    new Promise<void>((resolve) => heard.set(channel, [...(heard.get(channel) ?? []), (p) => p === payload && resolve()]));

  before(async () => {
    restoreClient = tapStatements((text) => {
      if (!isByTheClock(text)) sent?.push(text);
    });
    const url = await migratedDatabaseUrl();
    store = await openPgStore({ url });
    writer = new PgCoordination({ url });
    reader = new PgCoordination({ url });
    written = new PgRunEventLog(store, writer);
    elsewhere = new PgRunEventLog(store, reader);
    // the once-a-minute clean-up of old logs is no run's cost: as if it had just run
    for (const events of [written, elsewhere]) (events as unknown as { lastCleanup: number }).lastCleanup = Date.now();
    for (const channel of [EVENTS_CHANNEL, CLAIMABLE_CHANNEL])
      reader.listen(channel, (payload) => {
        for (const done of heard.get(channel) ?? []) done(payload);
      });
    // the LISTENs above are issued as the reader's connection opens
    await writer.ready();
    await reader.ready();
  });

  after(async () => {
    restoreClient?.();
    await writer.close();
    await reader.close();
    await store.close();
  });

  it('opens, appends to and ends a log in one statement each; a reader elsewhere is woken by each and reads it all', async () => {
    const threads = store.collection<{ thread_id: string }>('threads');
    await threads.put('t1', { thread_id: 't1' });
    const queuedOnThread = elsewhere.nextRunOn('t1');
    const opening = await statementsOf(() => written.open('r1', 'owner-1', 't1'), within(queuedOnThread, 'the thread waiter elsewhere'));
    assert.equal(opening.length, 1, opening.join('\n'));

    // a first attempt has no events before it: nothing to read
    const beginning = await statementsOf(() => written.begin('r1', () => assert.fail('no batch may be lost'), 1));
    assert.deepEqual(beginning, []);
    const metadata = await statementsOf(
      async () => written.publish('r1', 'metadata', { run_id: 'r1', attempt: 1 }),
      within(hear(EVENTS_CHANNEL, 'r1'), 'the wake-up for the first batch'),
    );
    assert.equal(metadata.length, 1, metadata.join('\n'));

    // two events in one turn of the event loop: one batch
    const batch = await statementsOf(
      async () => {
        written.publish('r1', 'values', { step: 1 });
        written.publish('r1', 'values', { step: 2 });
      },
      within(hear(EVENTS_CHANNEL, 'r1'), 'the wake-up for the second batch'),
    );
    assert.equal(batch.length, 1, batch.join('\n'));

    written.setResult('r1', { step: 2 });
    const ending = await statementsOf(() => written.end('r1'), within(hear(EVENTS_CHANNEL, 'r1'), 'the wake-up for the end'));
    assert.equal(ending.length, 1, ending.join('\n'));

    const events: RunEvent[] = [];
    for await (const event of elsewhere.join('r1')) events.push(event);
    assert.deepEqual(
      events.map((e) => [e.id, e.event, e.data]),
      [
        ['0', 'metadata', { run_id: 'r1', attempt: 1 }],
        ['1', 'values', { step: 1 }],
        ['2', 'values', { step: 2 }],
        ['3', 'end', null],
      ],
    );
    assert.deepEqual(await elsewhere.result('r1'), { step: 2 });
    await within(elsewhere.ended('r1'), 'the log ended, seen elsewhere');
  });

  it('writes the events of a run shorter than the batch window with its end, in one statement', async () => {
    await written.open('r8', 'owner-1');
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const run = await statementsOf(
      async () => {
        await written.begin('r8', () => assert.fail('no batch may be lost'), 1);
        // three turns of the event loop, as a short run publishes its events
        written.publish('r8', 'metadata', { run_id: 'r8', attempt: 1 });
        await turn();
        written.publish('r8', 'values', { step: 1 });
        await turn();
        written.publish('r8', 'values', { step: 2 });
        written.setResult('r8', { step: 2 });
        await written.end('r8');
      },
      within(hear(EVENTS_CHANNEL, 'r8'), 'the wake-up for the end'),
    );
    assert.equal(run.length, 1, run.join('\n'));
    const events: RunEvent[] = [];
    for await (const event of elsewhere.join('r8')) events.push(event);
    assert.deepEqual(
      events.map((e) => [e.id, e.event, e.data]),
      [
        ['0', 'metadata', { run_id: 'r8', attempt: 1 }],
        ['1', 'values', { step: 1 }],
        ['2', 'values', { step: 2 }],
        ['3', 'end', null],
      ],
    );
    assert.deepEqual(await elsewhere.result('r8'), { step: 2 });
  });

  it('keeps the last events of a run that has executed for its end, however long the end takes: one statement, not one more when the window runs out', async () => {
    const short = new PgRunEventLog(store, writer, () => {}, { batchWindowMs: 20 });
    (short as unknown as { lastCleanup: number }).lastCleanup = Date.now();
    await short.open('r20', 'owner-1');
    const run = await statementsOf(
      async () => {
        await short.begin('r20', () => assert.fail('no batch may be lost'), 1);
        short.publish('r20', 'metadata', { run_id: 'r20', attempt: 1 });
        short.publish('r20', 'values', { step: 1 });
        short.executed('r20');
        // the end comes later than the window (a busy replica: its turn, a connection of the pool)
        await new Promise((resolve) => setTimeout(resolve, 100));
        short.setResult('r20', { step: 1 });
        await short.end('r20');
      },
      within(hear(EVENTS_CHANNEL, 'r20'), 'the wake-up for the end'),
    );
    assert.equal(run.length, 1, run.join('\n'));
    const events: RunEvent[] = [];
    for await (const event of elsewhere.join('r20')) events.push(event);
    assert.deepEqual(
      events.map((e) => [e.id, e.event]),
      [
        ['0', 'metadata'],
        ['1', 'values'],
        ['2', 'end'],
      ],
    );
  });

  it('stores the events a run published before it executed once its window runs out, and those after with its end', async () => {
    const short = new PgRunEventLog(store, writer, () => {}, { batchWindowMs: 20 });
    (short as unknown as { lastCleanup: number }).lastCleanup = Date.now();
    await short.open('r21', 'owner-1');
    await short.begin('r21', () => assert.fail('no batch may be lost'), 1);
    const stored = hear(EVENTS_CHANNEL, 'r21');
    short.publish('r21', 'metadata', { run_id: 'r21', attempt: 1 });
    await within(stored, "the window's batch");
    short.executed('r21');
    short.publish('r21', 'values', { step: 1 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const ending = await statementsOf(() => short.detach('r21'));
    assert.equal(ending.length, 1, 'the event kept for the end is stored when the run is detached instead');
    const { rows } = await store.query<{ n: number }>('SELECT n FROM agentplane_run_events WHERE run_id = $1 ORDER BY n', ['r21']);
    assert.deepEqual(
      rows.map((r) => Number(r.n)),
      [0, 1],
    );
  });

  /** A log of its own (the runs another test left in `written` would be carried too), with a short window. */
  const ownLog = async (batchWindowMs = 20) => {
    const log = new PgRunEventLog(store, writer, () => {}, { batchWindowMs, writeAttempts: 2, retryMs: 1 });
    (log as unknown as { lastCleanup: number }).lastCleanup = Date.now();
    return log;
  };
  const eventsOf = async (runId: string) => {
    const events: RunEvent[] = [];
    for await (const event of elsewhere.join(runId)) events.push(event);
    return events.map((e) => [e.id, e.event]);
  };

  it('stores event data as it was published, whatever it holds, by each of the statements that append events', async () => {
    const log = await ownLog();
    const awkward = [
      { q: 'say "hi" \\ back\\slash \\"', nl: 'a\nb\tc\u0001', u: 'ü 漢字 😀 \u2028', nested: [1, null, true, { '"k"': '}', '{': ']' }] },
      'a "string" , with } and ]',
      null,
      -1.5e-7,
      [],
    ];
    const text = new JsonText(' { "a" : [ 1 , "x\\"y" ] } ');
    const published = (runId: string) => {
      for (const data of awkward) log.publish(runId, 'values', data);
      log.publish(runId, 'values', text);
    };
    const expected = [...awkward, { a: [1, 'x"y'] }, null];
    const dataOf = async (runId: string) => {
      const events: unknown[] = [];
      for await (const event of elsewhere.join(runId)) events.push(event.data);
      return events;
    };
    // a batch of its own (its window), one carried with another write, the last with the end
    for (const runId of ['r40', 'r41', 'r42']) {
      await log.open(runId, 'owner-1');
      await log.begin(runId, () => assert.fail('no batch may be lost'), 1);
    }
    const stored = hear(EVENTS_CHANNEL, 'r40');
    published('r40');
    await within(stored, "the window's batch");
    published('r41');
    await log.writeCarrying([{ collection: 'checkpoint_writes', id: 'cw-40', value: { thread_id: 't40', cp_key: 'k' } }]);
    published('r42');
    log.executed('r42');
    for (const runId of ['r40', 'r41', 'r42']) await log.end(runId);
    for (const runId of ['r40', 'r41', 'r42']) assert.deepEqual(await dataOf(runId), expected, runId);
  });

  it("carries the events every run here has waiting in its window with a checkpoint write: one statement, each run's readers elsewhere woken, nothing left for the window", async () => {
    const log = await ownLog();
    for (const runId of ['r30', 'r31']) {
      await log.open(runId, 'owner-1');
      await log.begin(runId, () => assert.fail('no batch may be lost'), 1);
    }
    log.publish('r30', 'metadata', { run_id: 'r30', attempt: 1 });
    log.publish('r31', 'metadata', { run_id: 'r31', attempt: 1 });
    log.publish('r31', 'values', { step: 1 });
    const put = { collection: 'checkpoint_writes', id: 'cw-30', value: { thread_id: 't30', cp_key: 'k' } };
    const carrying = await statementsOf(
      () => log.writeCarrying([put]),
      Promise.all([within(hear(EVENTS_CHANNEL, 'r30'), 'the wake-up for r30'), within(hear(EVENTS_CHANNEL, 'r31'), 'the wake-up for r31')]),
    );
    assert.equal(carrying.length, 1, carrying.join('\n'));
    assert.deepEqual(await store.collection('checkpoint_writes').get('cw-30'), put.value);
    // the windows were closed: nothing more is sent for these events
    assert.deepEqual(await statementsOf(() => new Promise((resolve) => setTimeout(resolve, 60))), []);
    // an executed run's last events wait for its end, which writes them anyway
    log.publish('r31', 'values', { step: 2 });
    log.executed('r31');
    const alone = await statementsOf(() => log.writeCarrying([{ ...put, id: 'cw-31' }]));
    assert.equal(alone.length, 1);
    assert.doesNotMatch(alone[0], /agentplane_run_events/, 'nothing carried for an executed run');
    for (const runId of ['r30', 'r31']) await log.end(runId);
    assert.deepEqual(await eventsOf('r30'), [
      ['0', 'metadata'],
      ['1', 'end'],
    ]);
    assert.deepEqual(await eventsOf('r31'), [
      ['0', 'metadata'],
      ['1', 'values'],
      ['2', 'values'],
      ['3', 'end'],
    ]);
  });

  it('carries none of the events of a run whose append is still being made: they wait for it, in order', async () => {
    const log = await ownLog();
    await log.open('r32', 'owner-1');
    await log.begin('r32', () => assert.fail('no batch may be lost'), 1);
    // the run's first append is held on its way to the database
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const query = store.query.bind(store);
    let appending!: () => void;
    const appendSent = new Promise<void>((resolve) => (appending = resolve));
    const slowStore = Object.create(store) as PgStore;
    slowStore.query = (async (sql: string, params: unknown[], prepared?: string | true) => {
      if (sql.includes('WITH appended')) {
        appending();
        await held;
      }
      return query(sql, params, prepared);
    }) as PgStore['query'];
    (log as unknown as { store: PgStore }).store = slowStore;
    log.publish('r32', 'metadata', { run_id: 'r32', attempt: 1 });
    await within(appendSent, 'the first append');
    log.publish('r32', 'values', { step: 1 });
    const writing = await statementsOf(() => log.writeCarrying([{ collection: 'checkpoint_writes', id: 'cw-32', value: { thread_id: 't32', cp_key: 'k' } }]));
    assert.equal(writing.length, 1);
    assert.doesNotMatch(writing[0], /agentplane_run_events/, 'the second event waits behind the first');
    letGo();
    await log.end('r32');
    assert.deepEqual(await eventsOf('r32'), [
      ['0', 'metadata'],
      ['1', 'values'],
      ['2', 'end'],
    ]);
  });

  it('appends the events it took on their own when the write carrying them fails, and the write fails', async () => {
    const log = await ownLog();
    await log.open('r33', 'owner-1');
    await log.begin('r33', () => assert.fail('no batch may be lost'), 1);
    log.publish('r33', 'metadata', { run_id: 'r33', attempt: 1 });
    const failing = Object.create(store) as PgStore;
    failing.writeWith = () => Promise.reject(new Error('disk full'));
    (log as unknown as { store: PgStore }).store = failing;
    const appended = within(hear(EVENTS_CHANNEL, 'r33'), 'the append of the events taken');
    await assert.rejects(log.writeCarrying([{ collection: 'checkpoint_writes', id: 'cw-33', value: { thread_id: 't33', cp_key: 'k' } }]), /disk full/);
    (log as unknown as { store: PgStore }).store = store;
    await appended;
    await log.end('r33');
    assert.deepEqual(await eventsOf('r33'), [
      ['0', 'metadata'],
      ['1', 'end'],
    ]);
    assert.equal(await store.collection('checkpoint_writes').get('cw-33'), undefined);
  });

  it('gives a reader who comes once a run has ended here every event of it, as stored, not the compacted memory log', async () => {
    await written.open('r9', 'owner-1');
    await written.begin('r9', () => assert.fail('no batch may be lost'), 1);
    written.publish('r9', 'metadata', { run_id: 'r9', attempt: 1 });
    written.publish('r9', 'updates', { echo: { step: 1 } });
    written.publish('r9', 'values', { step: 1 });
    written.publish('r9', 'values', { step: 2 });
    await written.end('r9');
    const events: RunEvent[] = [];
    for await (const event of written.join('r9')) events.push(event);
    assert.deepEqual(
      events.map((e) => [e.id, e.event]),
      [
        ['0', 'metadata'],
        ['1', 'updates'],
        ['2', 'values'],
        ['3', 'values'],
        ['4', 'end'],
      ],
    );
  });

  it("waits for the end of a run that starts here after it was asked in memory: its own batches' wake-ups cost no read", async () => {
    await written.open('r6', 'owner-1');
    // asked while the run is pending: one read says the log has not ended
    const reads: string[] = [];
    sent = reads;
    const ended = written.ended('r6');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await written.begin('r6', () => assert.fail('no batch may be lost'), 1);
    written.publish('r6', 'metadata', { run_id: 'r6', attempt: 1 });
    await hear(EVENTS_CHANNEL, 'r6');
    written.publish('r6', 'values', { step: 1 });
    await hear(EVENTS_CHANNEL, 'r6');
    await written.end('r6');
    await within(ended, 'the end, seen by the waiter');
    sent = null;
    const endedReads = reads.filter((s) => s.includes('ended_at IS NOT NULL'));
    // the read when asked and the one confirming the end: none for the batches in between
    assert.equal(endedReads.length, 2, reads.join('\n'));
  });

  it('numbers the events of a later attempt, on another replica, after those of the first', async () => {
    await written.open('r4', 'owner-1');
    await written.begin('r4', () => {}, 1);
    written.publish('r4', 'metadata', { run_id: 'r4', attempt: 1 });
    await written.detach('r4');
    await elsewhere.begin('r4', () => {}, 2);
    elsewhere.publish('r4', 'metadata', { run_id: 'r4', attempt: 2 });
    await elsewhere.end('r4');
    const events: RunEvent[] = [];
    for await (const event of written.join('r4')) events.push(event);
    assert.deepEqual(
      events.map((e) => [e.id, e.event, e.data]),
      [
        ['0', 'metadata', { run_id: 'r4', attempt: 1 }],
        ['1', 'metadata', { run_id: 'r4', attempt: 2 }],
        ['2', 'end', null],
      ],
    );
  });

  it('ends the log of a run that never started in one statement, its `end` after what is there', async () => {
    await written.open('r2', 'owner-1');
    const ending = await statementsOf(() => elsewhere.end('r2'), within(hear(EVENTS_CHANNEL, 'r2'), 'the wake-up for the end'));
    assert.equal(ending.length, 1, ending.join('\n'));
    const events: RunEvent[] = [];
    for await (const event of written.join('r2')) events.push(event);
    assert.deepEqual(
      events.map((e) => [e.id, e.event]),
      [['0', 'end']],
    );
  });

  it('claims runs in one statement and gives its claim up in one, and the other replicas hear they may claim', async () => {
    const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
    await store.collection<{ thread_id: string }>('threads').put('t3', { thread_id: 't3' });
    await runs.put('r3', pendingRun('r3', 't3'));
    const claims = new PgRunClaims({ store, coordination: writer, leaseMs: 60_000, events: new PgRunEventLog(store, writer), warn: () => {} });
    let claimed: Claim | null = null;
    const started = { status: 'running' as const, updated_at: new Date().toISOString() };
    const claiming = await statementsOf(async () => (claimed = (await claims.claim(started, 10)).claims[0] ?? null));
    assert.equal(claimed!.run.run_id, 'r3');
    // the look-up, the run started, its claim taken and the next delayed run's time: one statement
    assert.equal(claiming.length, 1, claiming.join('\n'));
    assert.equal((await runs.get('r3'))?.status, 'running');
    assert.deepEqual((await claims.claim(started, 10)).claims, [], 'one running run per thread');
    await runs.put('r3', { ...claimed!.run, status: 'success' });
    const releasing = await statementsOf(
      () => claims.release(claimed!, { ...claimed!.run, status: 'success' }),
      within(hear(CLAIMABLE_CHANNEL, writer.replicaId), 'the wake-up for the release'),
    );
    assert.equal(releasing.length, 1, releasing.join('\n'));
    const { rows } = await store.query('SELECT 1 FROM agentplane_run_claims WHERE run_id = $1', ['r3']);
    assert.equal(rows.length, 0, 'the claim is gone');
  });

  it('stores a run, opens its log and wakes the claimers in one statement; ends it and gives its claim up in one', async () => {
    const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
    const claims = new PgRunClaims({ store, coordination: writer, leaseMs: 60_000, events: new PgRunEventLog(store, writer), warn: () => {} });
    const run = pendingRun('r5', 't5');
    const queuedOnThread = elsewhere.nextRunOn('t5');
    let woke: { woke: boolean } | null = null;
    const enqueueing = await statementsOf(
      async () =>
        (woke = await claims.enqueue(
          [
            { collection: 'threads', id: 't5', value: { thread_id: 't5', status: 'busy' } },
            { collection: 'runs', id: 'r5', value: run },
          ],
          run,
          'owner-1',
        )),
      Promise.all([within(queuedOnThread, 'the thread waiter elsewhere'), within(hear(CLAIMABLE_CHANNEL, writer.replicaId), 'the wake-up for the queued run')]),
    );
    assert.equal(enqueueing.length, 1, enqueueing.join('\n'));
    assert.deepEqual(woke, { woke: true }, 'no claim on the thread: the claimers are told');
    assert.equal(await elsewhere.ownerOf('r5'), 'owner-1', 'the log is open');

    const started = { status: 'running' as const, updated_at: new Date().toISOString() };
    const [claim] = (await claims.claim(started, 10)).claims;
    assert.equal(claim.run.run_id, 'r5');
    // behind a claimed run: the claim's release tells the claimers, not the enqueue
    const next = pendingRun('r6', 't5');
    assert.deepEqual(
      await claims.enqueue(
        [
          { collection: 'runs', id: 'r6', value: next },
          { collection: 'threads', id: 't5', value: { thread_id: 't5', status: 'busy' } },
        ],
        next,
        'owner-1',
      ),
      {
        woke: false,
      },
    );

    const ended = { ...claim.run, status: 'success' as const };
    const ending = await statementsOf(
      async () => assert.equal(await claims.recordEnd(claim, [{ collection: 'runs', id: 'r5', value: ended }], ended), true),
      within(hear(CLAIMABLE_CHANNEL, writer.replicaId), 'the wake-up for the release'),
    );
    assert.equal(ending.length, 1, ending.join('\n'));
    assert.equal((await runs.get('r5'))?.status, 'success');
    assert.deepEqual(
      (await claims.claim(started, 10)).claims.map((c) => c.run.run_id),
      ['r6'],
      'the claim went with the end',
    );
  });

  it("ends a run's log with its final end, in its one statement: its last events, `end` and result, its readers woken; nothing through a claim taken over", async () => {
    const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
    await store.collection<{ thread_id: string }>('threads').put('t10', { thread_id: 't10' });
    const claims = new PgRunClaims({ store, coordination: writer, leaseMs: 60_000, events: written, warn: () => {} });
    const started = { status: 'running' as const, updated_at: new Date().toISOString() };
    const close = { events: [{ event: 'error', data: { error: 'Boom', message: 'no' } }], result: { __error__: { error: 'Boom', message: 'no' } } };

    // through a claim taken over: nothing, the log not ended, its waiting events not stored
    await runs.put('r11', pendingRun('r11', 't10'));
    await written.open('r11', 'owner-1', 't10');
    const [stale] = (await claims.claim(started, 10)).claims;
    await written.begin('r11', () => assert.fail('no batch may be lost'), 1);
    written.publish('r11', 'metadata', { run_id: 'r11', attempt: 1 });
    await store.query('UPDATE agentplane_run_claims SET token = $2 WHERE run_id = $1', ['r11', 'taken-over']);
    const failed = { ...stale.run, status: 'error' as const };
    assert.equal(await claims.recordEnd(stale, [{ collection: 'runs', id: 'r11', value: failed }], failed, close), false);
    const stored = await store.query('SELECT n FROM agentplane_run_events WHERE run_id = $1', ['r11']);
    assert.deepEqual(stored.rows, [], 'nothing stored through the stale claim');
    assert.equal((await store.query('SELECT 1 FROM agentplane_run_logs WHERE run_id = $1 AND ended_at IS NULL', ['r11'])).rowCount, 1, 'the log open');
    // the attempt goes on elsewhere: its events so far are stored, numbered before the next attempt's
    await written.detach('r11');
    assert.deepEqual((await store.query<{ n: number }>('SELECT n FROM agentplane_run_events WHERE run_id = $1', ['r11'])).rows, [{ n: 0 }]);
    await store.query('DELETE FROM agentplane_run_claims WHERE run_id = $1', ['r11']);
    await runs.put('r11', failed);

    await runs.put('r12', pendingRun('r12', 't10'));
    await written.open('r12', 'owner-1', 't10');
    const [claim] = (await claims.claim(started, 10)).claims;
    assert.equal(claim.run.run_id, 'r12');
    await written.begin('r12', () => assert.fail('no batch may be lost'), 1);
    const ended = { ...claim.run, status: 'error' as const };
    const ending = await statementsOf(
      async () => {
        written.publish('r12', 'metadata', { run_id: 'r12', attempt: 1 });
        written.publish('r12', 'values', { step: 1 });
        assert.equal(await claims.recordEnd(claim, [{ collection: 'runs', id: 'r12', value: ended }], ended, close), true);
        // as the engine does once the end is recorded: nothing more is stored
        for (const e of close.events) written.publish('r12', e.event, e.data);
        written.setResult('r12', close.result);
        await written.end('r12');
      },
      within(hear(EVENTS_CHANNEL, 'r12'), 'the wake-up for the end'),
    );
    assert.equal(ending.length, 1, ending.join('\n'));
    const events: RunEvent[] = [];
    for await (const event of elsewhere.join('r12')) events.push(event);
    assert.deepEqual(
      events.map((e) => [e.id, e.event, e.data]),
      [
        ['0', 'metadata', { run_id: 'r12', attempt: 1 }],
        ['1', 'values', { step: 1 }],
        ['2', 'error', { error: 'Boom', message: 'no' }],
        ['3', 'end', null],
      ],
    );
    assert.deepEqual(await elsewhere.result('r12'), close.result);
    await within(elsewhere.ended('r12'), 'the log ended, seen elsewhere');
    // and here, from memory: the same events
    const local: RunEvent[] = [];
    for await (const event of (written as unknown as { local: { join(id: string): AsyncIterable<RunEvent> } }).local.join('r12')) local.push(event);
    assert.deepEqual(
      local.map((e) => [e.id, e.event]),
      [
        ['0', 'metadata'],
        ['1', 'values'],
        ['2', 'error'],
        ['3', 'end'],
      ],
    );
    assert.equal((await runs.get('r12'))?.status, 'error');
    assert.equal((await store.query('SELECT 1 FROM agentplane_run_claims WHERE run_id = $1', ['r12'])).rowCount, 0, 'the claim went with the end');
  });

  it('stores a run that one statement cannot carry in steps: the run stored, its log open, the claimers told', async () => {
    const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
    await store.collection<{ thread_id: string }>('threads').put('t7', { thread_id: 't7' });
    const claims = new PgRunClaims({ store, coordination: writer, leaseMs: 60_000, events: new PgRunEventLog(store, writer), warn: () => {} });
    const run = pendingRun('r7', 't7');
    // one write op: too few for the one-statement form (pgStore.writeWith answers null)
    const told = within(hear(CLAIMABLE_CHANNEL, writer.replicaId), 'the wake-up for the queued run');
    assert.deepEqual(await claims.enqueue([{ collection: 'runs', id: 'r7', value: run }], run, 'owner-7'), { woke: true });
    await told;
    assert.equal((await runs.get('r7'))?.status, 'pending', 'the run is stored');
    assert.equal(await elsewhere.ownerOf('r7'), 'owner-7', 'the log is open');
  });
});
