// A run worker starts a thread's next run as soon as the run before it ends, ahead of its
// claim, holding back everything it does until the main thread has claimed it and read the
// thread as the run assumed (adapters/run-workers/runsAhead.ts, runWorker.ts). Whatever happens, a run
// started ahead is indistinguishable from one started after its claim: it goes on when the
// thread is as it read it, and otherwise (the thread written meanwhile, never claimed) it is
// dropped with nothing of it stored or streamed, and the run starts afresh when claimed.
import { CollectionCheckpoints } from '../../../src/adapters/embedded/collectionCheckpoints.ts';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import { Client } from '@langchain/langgraph-sdk';
import { StoreCheckpointer } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import type { RunWorkerPool } from '../../../src/adapters/run-workers/runWorkerPool.ts';
import { RunsAhead } from '../../../src/adapters/run-workers/runsAhead.ts';
import { uuid7 } from '../../../src/domain/agent/ids.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';
import type { RunRecord } from '../../../src/domain/agent/records.ts';
import { pendingRun } from '../../support/runRecords.ts';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';
import { testRunWorkerPool } from '../../support/runWorkerPools.ts';

type Stored = { checkpoint_id: string; parent_checkpoint_id?: string | null; run_id?: string; metadata?: unknown };

describe('a thread’s next run started ahead in its worker', () => {
  let store: Awaited<ReturnType<typeof openJournalStore>>;
  let pool: RunWorkerPool;
  let ahead: RunsAhead;
  /** What the pool is told runs next on each thread (the engine's claims in the server). */
  const nextOn = new Map<string, RunRecord>();

  before(async () => {
    store = await openJournalStore({ dataDir: null });
    pool = testRunWorkerPool({
      graphs: { agent: './examples/graphs/agent.ts:agent', slow: './test/fixtures/graphs/streamWhileBusy.ts:waitThenAnswer' },
      store,
      compiled: true,
      kindOf: () => 'langgraph',
    });
    ahead = new RunsAhead(pool, async (threadId) => nextOn.get(threadId) ?? null, { kindOf: () => 'langgraph', log: createLogger('error') });
  });

  after(async () => {
    await pool.stop();
    await store.close();
  });

  const run = (threadId: string, content: string): RunRecord =>
    pendingRun(uuid7(), threadId, {
      graph_id: 'agent',
      status: 'running',
      kwargs: { input: { messages: [{ role: 'user', content }] }, stream_mode: ['values'] },
    });
  const checkpoints = async (threadId: string) =>
    (await store.collection<Stored>('checkpoints').list({ where: { thread_id: threadId } })).sort((a, b) => (a.checkpoint_id < b.checkpoint_id ? -1 : 1));
  const runOf = (c: Stored) => (c.metadata as { run_id?: string } | undefined)?.run_id ?? c.run_id;
  const answers = (values: unknown) =>
    ((values as { messages: { type?: string; content: unknown }[] }).messages ?? [])
      .filter((m) => m.type === 'ai' && typeof m.content === 'string' && m.content.length > 0)
      .map((m) => m.content);
  const counts = () => ({ ...ahead.startedAhead });
  /** Runs `first` with `next` offered to start after it; the counts before. */
  const runOffering = async (first: RunRecord, next: RunRecord) => {
    nextOn.set(first.thread_id, next);
    const was = counts();
    await ahead.execute(first, new AbortController().signal, () => undefined);
    nextOn.delete(first.thread_id);
    return was;
  };

  it(
    'goes on when claimed with the thread as it left it: the same state, events and checkpoints as a run started after its claim',
    { timeout: 60_000 },
    async () => {
      const threadId = randomUUID();
      const first = run(threadId, 'what is 6 * 7?');
      const second = run(threadId, 'what is 2 + 3?');
      nextOn.set(threadId, second);
      const was = counts();
      await ahead.execute(first, new AbortController().signal, () => undefined);
      nextOn.delete(threadId);
      const events: string[] = [];
      const output = await ahead.execute(second, new AbortController().signal, (event) => void events.push(event));
      assert.deepEqual(
        counts(),
        { offered: was.offered + 1, started: was.started + 1, went: was.went + 1, dropped: was.dropped },
        'started ahead, and went on',
      );
      assert.deepEqual(answers(output.values).filter((a) => /answer/i.test(String(a))).length, 2, JSON.stringify(output.values));
      assert.match(JSON.stringify(output.values), /The answer is 42.*The answer is 5/s);
      assert.ok(events.includes('values'), 'its events were streamed once it went on');
      const stored = await checkpoints(threadId);
      const firstOnes = stored.filter((c) => runOf(c) === first.run_id);
      const secondOnes = stored.filter((c) => runOf(c) === second.run_id);
      assert.ok(firstOnes.length > 0 && secondOnes.length > 0);
      assert.equal(firstOnes.length + secondOnes.length, stored.length);
      assert.equal(secondOnes[0].parent_checkpoint_id, firstOnes.at(-1)!.checkpoint_id, 'the second run started from where the first ended');
    },
  );

  it('is dropped when the thread was written meanwhile, and the run starts afresh from what the thread holds then', { timeout: 60_000 }, async () => {
    const threadId = randomUUID();
    const first = run(threadId, 'what is 6 * 7?');
    const second = run(threadId, 'what is 2 + 3?');
    const was = await runOffering(first, second);
    // a state update between the runs (as POST /threads/{id}/state makes): a newer checkpoint
    const saver = new StoreCheckpointer(new CollectionCheckpoints(store));
    const tuple = (await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '' } }))!;
    const updated = await saver.put(tuple.config, { ...tuple.checkpoint, id: uuid6(-3) }, { source: 'update', step: 99, parents: {} } as never);
    const updatedId = updated.configurable!.checkpoint_id as string;
    const output = await ahead.execute(second, new AbortController().signal, () => undefined);
    assert.deepEqual(counts(), { offered: was.offered + 1, started: was.started + 1, went: was.went, dropped: was.dropped + 1 });
    assert.match(JSON.stringify(output.values), /The answer is 42.*The answer is 5/s);
    const secondOnes = (await checkpoints(threadId)).filter((c) => runOf(c) === second.run_id);
    assert.equal(secondOnes[0].parent_checkpoint_id, updatedId, 'started from the updated state');
    assert.ok(
      secondOnes.every((c) => c.parent_checkpoint_id !== tuple.checkpoint.id),
      'nothing of the dropped attempt, which started from the state before the update, was stored',
    );
  });

  it('is never started when it is taken out of the queue (cancelled, deleted) before the run it follows ends', { timeout: 60_000 }, async () => {
    const threadId = randomUUID();
    // a run that lasts 400 ms: the next run is offered to its worker meanwhile
    const first = pendingRun(uuid7(), threadId, {
      graph_id: 'slow',
      status: 'running',
      kwargs: { input: { messages: [{ role: 'user', content: 'wait' }] }, stream_mode: ['values'] },
    });
    const cancelled = run(threadId, 'what is 9 - 4?');
    nextOn.set(threadId, cancelled);
    const was = counts();
    const running = ahead.execute(first, new AbortController().signal, () => undefined);
    while (counts().offered === was.offered) await sleep(10);
    nextOn.delete(threadId);
    ahead.withdrawn(cancelled.run_id);
    await running;
    await sleep(100);
    assert.deepEqual(counts(), { ...was, offered: was.offered + 1 }, 'offered, then withdrawn: not started');
    // and one withdrawn before it could be offered is not offered at all
    const second = pendingRun(uuid7(), threadId, {
      graph_id: 'slow',
      status: 'running',
      kwargs: { input: { messages: [{ role: 'user', content: 'wait' }] }, stream_mode: ['values'] },
    });
    const withdrawnEarly = run(threadId, 'what is 8 - 4?');
    ahead.withdrawn(withdrawnEarly.run_id);
    nextOn.set(threadId, withdrawnEarly);
    await ahead.execute(second, new AbortController().signal, () => undefined);
    nextOn.delete(threadId);
    assert.deepEqual(counts(), { ...was, offered: was.offered + 1 }, 'not offered');
    assert.equal((await checkpoints(threadId)).filter((c) => [cancelled.run_id, withdrawnEarly.run_id].includes(runOf(c)!)).length, 0);
  });

  it('is dropped when it is not claimed (cancelled meanwhile, say): nothing of it is stored, and the worker goes on', { timeout: 60_000 }, async () => {
    const threadId = randomUUID();
    const first = run(threadId, 'what is 6 * 7?');
    const never = run(threadId, 'what is 9 - 4?');
    const was = await runOffering(first, never);
    await sleep(1_000);
    assert.deepEqual(counts(), { offered: was.offered + 1, started: was.started + 1, went: was.went, dropped: was.dropped + 1 });
    assert.equal((await checkpoints(threadId)).filter((c) => runOf(c) === never.run_id).length, 0);
    assert.deepEqual(
      await store
        .collection<{ cp_key: string }>('checkpoint_writes')
        .list({ where: { thread_id: threadId } })
        .then((w) => w.filter((x) => x.cp_key.includes(never.run_id))),
      [],
    );
    const again = await ahead.execute(run(threadId, 'what is 1 + 1?'), new AbortController().signal, () => undefined);
    assert.match(JSON.stringify(again.values), /The answer is 42\..*The answer is 2\./s);
    assert.doesNotMatch(JSON.stringify(again.values), /9 - 4/, 'the dropped run’s input is not in the thread');
  });
});

describe('runs queued on one thread, through the server', () => {
  let server: InProcessApp;
  const lines: { msg: string }[] = [];
  before(async () => {
    server = await areaApp('agent-server', {
      project: testProject,
      compiledModules: true,
      dataDir: null,
      runWorkers: 'default',
      log: createLogger('debug', {}, (line) => void lines.push(JSON.parse(line))),
    });
  });
  after(() => server.close());

  it('run one after another, most started ahead, each once and in order', { timeout: 60_000 }, async () => {
    const client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
    const thread = await client.threads.create();
    const asked = Array.from({ length: 20 }, (_, i) => `what is ${i} + 1?`);
    // a run that waits a second holds the thread, so that all twenty are queued behind it
    // however slowly this machine creates them (the thread's plain-state run goes ahead of them)
    await client.runs.create(thread.thread_id, 'slow', { input: { messages: [{ role: 'user', content: 'hold' }] }, context: { delay_ms: 1000 } });
    let last = '';
    for (const question of asked)
      last = (await client.runs.create(thread.thread_id, 'agent', { input: { messages: [{ role: 'user', content: question }] }, multitaskStrategy: 'enqueue' }))
        .run_id;
    await client.runs.join(thread.thread_id, last);
    const runs = await client.runs.list(thread.thread_id, { limit: 100 });
    assert.deepEqual(
      runs.map((r) => r.status),
      Array(21).fill('success'),
    );
    const messages = ((await client.threads.getState(thread.thread_id)).values as { messages: { type: string; content: unknown }[] }).messages;
    assert.deepEqual(
      messages.filter((m) => m.type === 'human').map((m) => m.content),
      ['hold', ...asked],
      'every input once, in order',
    );
    const answers = messages.filter((m) => m.type === 'ai' && typeof m.content === 'string' && /answer/i.test(m.content)).map((m) => m.content);
    assert.deepEqual(
      answers,
      asked.map((_, i) => `The answer is ${i + 1}.`),
    );
    const went = lines.filter((l) => l.msg === 'a run started ahead of its claim goes on').length;
    assert.ok(went >= 15, `${went} of 20 runs went on from a start ahead`);
  });
});
