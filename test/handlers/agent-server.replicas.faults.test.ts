// Three agentplane replicas on one PostgreSQL database, requests spread over them
// round-robin as a load balancer would: every run executes exactly once, one at a time per
// thread and in receipt order; a replica killed with kill -9 loses no acknowledged run and
// its run in flight is taken over (attempt 2) by the others; a client on one replica follows,
// resumes, waits for and cancels a run executing on another.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { Client } from '@langchain/langgraph-sdk';
import pg from 'pg';
import { spawnServer, tempDir, type ChildServer } from '../support/server.ts';
import { freshDatabaseUrl } from '../support/postgres.ts';
import { logLine } from '../support/logLines.ts';
import { FIXTURE_CONFIG } from '../fixtures/agent-server/project.ts';

const REPLICAS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Sent {
  index: number;
  content: string;
  threadId: string;
  sentAt: number;
  ackAt?: number;
  runId?: string;
}

describe('replicas on one PostgreSQL database', () => {
  const replicas: (ChildServer | null)[] = [];
  let databaseUrl = '';
  const start = async () => {
    const server = await spawnServer(['--data', tempDir(), '--config', FIXTURE_CONFIG], {
      DATABASE_URL: databaseUrl,
      AGENTPLANE_ACCESS_LOG: '0',
      AGENTPLANE_MAX_CONCURRENT_RUNS: '4',
      // short leases so a replica that stops renewing is noticed quickly here
      AGENTPLANE_RUN_LEASE_S: '3',
    });
    replicas.push(server);
    return server;
  };
  const live = () => replicas.filter((r): r is ChildServer => r !== null);
  const client = (server: ChildServer) => new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });

  before(async () => {
    databaseUrl = await freshDatabaseUrl();
    // the first creates the schema; the others start together on it
    await start();
    await Promise.all(Array.from({ length: REPLICAS - 1 }, () => start()));
  });
  after(async () => {
    for (const server of live()) await server.kill('SIGKILL');
  });

  // 300 runs take every path the property needs (50 clients racing on 10 threads, a kill
  // mid-way with runs and requests in flight) in a fraction of the time of a larger load;
  // REPLICAS_TEST_RUNS=1000 (or more) for a deeper run
  const RUNS = Number(process.env.REPLICAS_TEST_RUNS ?? 300);
  it(`${RUNS} runs from 50 clients over 10 threads run exactly once, in receipt order per thread, through a kill -9 of one replica`, async () => {
    const THREADS = 10;
    const CLIENTS = 50;
    const threads: string[] = [];
    for (let t = 0; t < THREADS; t += 1) threads.push((await client(live()[t % REPLICAS]).threads.create()).thread_id);

    const sent: Sent[] = [];
    let next = 0;
    let turn = 0;
    let killed: ChildServer | null = null;
    let killing: Promise<void> | null = null;
    // a run that is certainly in flight when its replica dies: long, on a thread of its own
    const inFlight = { threadId: '', runId: '' };
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const replicaIdOf = (server: ChildServer): string => logLine(server.output(), 'agentplane listening')!.replica_id;
    const killTheOneExecuting = async () => {
      inFlight.threadId = (await client(live()[0]).threads.create()).thread_id;
      inFlight.runId = (
        await client(live()[1]).runs.create(inFlight.threadId, 'slow', {
          input: { messages: [{ role: 'user', content: 'in flight' }] },
          context: { delay_ms: 1_500 },
        })
      ).run_id;
      let holder: string | undefined;
      for (let i = 0; i < 400 && !holder; i += 1) {
        holder = (await db.query<{ replica: string }>('SELECT replica FROM agentplane_run_claims WHERE run_id = $1', [inFlight.runId])).rows[0]?.replica;
        if (!holder) await sleep(10);
      }
      // and its first attempt has begun telling its stream (a kill between the claim and the
      // first event's INSERT leaves attempt 1 nothing to show, which proves nothing)
      for (let i = 0; i < 400; i += 1) {
        if ((await db.query('SELECT 1 FROM agentplane_run_events WHERE run_id = $1 LIMIT 1', [inFlight.runId])).rowCount) break;
        await sleep(10);
      }
      const victim = live().find((server) => replicaIdOf(server) === holder);
      assert.ok(victim, 'the long run was claimed by a replica');
      killed = victim;
      replicas[replicas.indexOf(victim)] = null;
      await victim.kill('SIGKILL');
    };
    const pick = () => {
      const pool = live();
      turn += 1;
      return pool[turn % pool.length];
    };
    const worker = async () => {
      for (;;) {
        const index = next;
        next += 1;
        if (index >= RUNS) return;
        // mid-way: the replica executing the long run dies, with other runs in flight and
        // requests on their way to it; the other clients carry on meanwhile
        if (index === Math.floor(RUNS / 3)) {
          killing = killTheOneExecuting();
          await killing;
        }
        const threadId = threads[index % THREADS];
        // a request that fails on its way (the replica died) is sent again as a new one,
        // as a client would: its content tells the two apart
        for (let attempt = 1; ; attempt += 1) {
          const entry: Sent = { index, content: `r${index}.${attempt}`, threadId, sentAt: performance.now() };
          sent.push(entry);
          try {
            const run = await client(pick()).runs.create(threadId, 'slow', {
              input: { messages: [{ role: 'user', content: entry.content }] },
              context: { delay_ms: 5 },
            });
            entry.ackAt = performance.now();
            entry.runId = run.run_id;
            break;
          } catch (error) {
            if (attempt > 5) throw error;
            await sleep(50);
          }
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: CLIENTS }, () => worker()));
      await killing;
    } finally {
      // an open client would keep the test process alive after a failure
      await db.end();
    }
    assert.ok(killed, 'a replica was killed mid-way');
    const acknowledged = sent.filter((s) => s.ackAt !== undefined);
    assert.equal(new Set(acknowledged.map((s) => s.index)).size, RUNS, 'every run was acknowledged once');

    // every acknowledged run ends in success, wherever it ran (waits are spread too)
    const survivors = live();
    for (const [n, entry] of acknowledged.entries()) {
      const run = await client(survivors[n % survivors.length])
        .runs.join(entry.threadId, entry.runId!)
        .then(() => client(survivors[(n + 1) % survivors.length]).runs.get(entry.threadId, entry.runId!));
      assert.equal(run.status, 'success', `run ${entry.content} ended ${run.status}`);
    }

    for (const threadId of threads) {
      const state = await client(survivors[0]).threads.getState(threadId);
      const humans = (state.values as { messages: { type: string; content: string }[] }).messages.filter((m) => m.type === 'human').map((m) => m.content);
      const position = new Map(humans.map((content, at) => [content, at]));
      // exactly once: no input twice, every acknowledged one present
      assert.equal(position.size, humans.length, `thread ${threadId}: a run executed twice to completion`);
      const mine = acknowledged.filter((s) => s.threadId === threadId);
      for (const entry of mine) assert.ok(position.has(entry.content), `acknowledged run ${entry.content} is missing from its thread`);
      // requests that failed on their way ran at most once (counted above), and only those may add to the acknowledged
      assert.ok(humans.length - mine.length <= sent.filter((s) => s.threadId === threadId && s.ackAt === undefined).length);
      // receipt order: a run acknowledged before another was sent ran before it
      const byAck = [...mine].sort((a, b) => a.ackAt! - b.ackAt!);
      for (const later of mine) {
        for (const earlier of byAck) {
          if (earlier.ackAt! >= later.sentAt) break;
          assert.ok(
            position.get(earlier.content)! < position.get(later.content)!,
            `thread ${threadId}: ${earlier.content} was acknowledged before ${later.content} was sent but ran after it`,
          );
        }
      }
      assert.equal(state.next.length, 0);
      const thread = await client(survivors[1]).threads.get(threadId);
      assert.equal(thread.status, 'idle');
    }
    // the run the killed replica was executing was taken over by a survivor as attempt 2, ran
    // to completion once, and its stream (from any replica) tells both attempts
    const retried = await client(survivors[0])
      .runs.join(inFlight.threadId, inFlight.runId)
      .then(() => client(survivors[1]).runs.get(inFlight.threadId, inFlight.runId));
    assert.equal(retried.status, 'success');
    const stream = await fetch(`${survivors[1].url}/threads/${inFlight.threadId}/runs/${inFlight.runId}/stream`).then((res) => res.text());
    assert.match(stream, /"attempt":1[\s\S]*"attempt":2/);
    const inputs = ((await client(survivors[0]).threads.getState(inFlight.threadId)).values as { messages: { type: string; content: string }[] }).messages.map(
      (m) => `${m.type}:${m.content}`,
    );
    assert.deepEqual(inputs, ['human:in flight', 'ai:in flight']);
    const retriedLine = logLine(
      survivors.map((s) => s.output()).join('\n'),
      'run was in progress when the server stopped; starting it again',
      (l) => l.run_id === inFlight.runId && l.attempt === 2,
    );
    assert.ok(retriedLine, 'a survivor says it started the run in flight again (attempt 2)');
  });

  it('a client on one replica streams, resumes, waits for and cancels a run executing on another', async () => {
    const [a, b, c] = live().length >= 3 ? live() : [...live(), await start()];
    const thread = await client(a).threads.create();
    const run = await client(a).runs.create(thread.thread_id, 'slow', {
      input: { messages: [{ role: 'user', content: 'across' }] },
      context: { delay_ms: 400 },
    });
    // every replica follows the same run with the same event ids (at most one of them executes it)
    const streams = await Promise.all(
      [a, b, c].map(async (server) => {
        const events: { event: string; id?: string }[] = [];
        const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`);
        assert.equal(res.status, 200);
        const text = await res.text();
        for (const block of text.split('\n\n')) {
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const id = /^id: (.*)$/m.exec(block)?.[1];
          if (event) events.push({ event, id });
        }
        return events;
      }),
    );
    for (const events of streams) {
      assert.deepEqual(
        events.map((e) => e.event),
        streams[0].map((e) => e.event),
      );
      assert.equal(events[0].event, 'metadata');
      assert.ok(!events.some((e) => e.event === 'end'));
      assert.ok(events.some((e) => e.event === 'values'));
    }
    assert.deepEqual(
      streams[1].map((e) => e.id),
      streams[0].map((e) => e.id),
    );
    // Last-Event-ID on another replica resumes after that event
    const resumed = await fetch(`${c.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`, { headers: { 'Last-Event-ID': streams[0][0].id! } }).then(
      (r) => r.text(),
    );
    assert.doesNotMatch(resumed, /event: metadata/);
    assert.match(resumed, /event: values/);
    assert.doesNotMatch(resumed, /event: end/);

    // cancel from one replica, wait from another, read from the third
    const long = await client(b).runs.create(thread.thread_id, 'slow', {
      input: { messages: [{ role: 'user', content: 'stop me' }] },
      context: { delay_ms: 30_000 },
    });
    for (let i = 0; i < 100 && (await client(c).runs.get(thread.thread_id, long.run_id)).status !== 'running'; i += 1) await sleep(50);
    const waited = fetch(`${a.url}/threads/${thread.thread_id}/runs/${long.run_id}/join`).then((r) => r.json() as Promise<unknown>);
    await client(c).runs.cancel(thread.thread_id, long.run_id);
    const begun = Date.now();
    await waited;
    assert.ok(Date.now() - begun < 10_000, 'the run stopped well before its 30 s');
    assert.equal((await client(b).runs.get(thread.thread_id, long.run_id)).status, 'interrupted');
    // the thread runs again afterwards, from any replica
    const again = await client(c).runs.wait(thread.thread_id, 'echo', { input: { messages: [{ role: 'user', content: 'after' }] } });
    assert.ok(JSON.stringify(again).includes('after'));
  });
});
