// The database away for most of the run lease (AGENTPLANE_RUN_LEASE_S=6, every connection cut
// and refused for 5 s, as a restart looks to its clients: their sessions and locks end) under
// load on three replicas, one of them killed with kill -9 while it is away: no
// run executes twice except those of the killed replica, no two executions ever overlap on
// one thread, runs in flight across the outage keep their claims and finish once, every
// acknowledged run ends `success` with its input once in its thread. Each execution is
// written down by the `ledger` graph (start, done, stop; its process and the time). A proxy
// cuts the connections (test/support/dropProxy.ts): pg_ctl's own stop and start take seconds
// more on a loaded machine, which would make the outage longer than the lease it is near.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { spawnServer, tempDir, type ChildServer } from '../support/server.ts';
import { freshDatabaseUrl } from '../support/postgres.ts';
import { logLine } from '../support/logLines.ts';
import { dropProxy, type DropProxy } from '../support/dropProxy.ts';
import { FIXTURE_CONFIG } from '../fixtures/agent-server/project.ts';

const LEASE_S = 6;
const OUTAGE_MS = 5_000;
const SHORT_THREADS = 9;
/** Runs of 10 s, started before the outage and still executing after it. */
const LONG_RUNS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Map.groupBy (Node 21). */
function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

interface Line {
  what: 'start' | 'done' | 'stop';
  run: string;
  thread: string;
  pid: number;
  at: number;
}

interface Sent {
  threadId: string;
  content: string;
  runId: string;
}

describe('a PostgreSQL outage near the run lease, on three replicas', () => {
  let databaseUrl = '';
  let proxy: DropProxy;
  const replicas: ChildServer[] = [];
  const ledgerFile = path.join(tempDir(), 'ledger.jsonl');
  /** Every acknowledged run; the long ones first. */
  const sent: Sent[] = [];
  const live = new Set<ChildServer>();
  const longThreads: string[] = [];
  let shortThreads: string[] = [];

  before(async () => {
    databaseUrl = await freshDatabaseUrl();
    proxy = await dropProxy(databaseUrl);
    const start = () =>
      spawnServer(['--data', tempDir(), '--config', FIXTURE_CONFIG], {
        DATABASE_URL: proxy.url,
        AGENTPLANE_ACCESS_LOG: '0',
        AGENTPLANE_RUN_WORKERS: '1',
        AGENTPLANE_MAX_CONCURRENT_RUNS: '4',
        AGENTPLANE_RUN_LEASE_S: String(LEASE_S),
      });
    // the first creates the schema; the others start on it
    replicas.push(await start());
    replicas.push(...(await Promise.all([start(), start()])));
    for (const server of replicas) live.add(server);
  });
  after(async () => {
    // what the replicas logged, for a failure's reader
    const logs = tempDir();
    for (const [n, server] of replicas.entries()) fs.writeFileSync(path.join(logs, `replica-${n}-${server.process.pid}.log`), server.output());
    console.log(`replica logs in ${logs}`);
    for (const server of replicas) await server.kill('SIGKILL');
    await proxy.close();
  });

  it('runs nothing twice but the killed replica’s runs, never two at once on a thread, and keeps claims through the outage', async () => {
    const post = (server: ChildServer, url: string, body: unknown) =>
      fetch(server.url + url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    let turn = 0;
    const pick = () => {
      const pool = [...live];
      return pool[(turn += 1) % pool.length];
    };
    const createThread = async () => ((await (await post(pick(), '/threads', {})).json()) as { thread_id: string }).thread_id;
    const runOn = (threadId: string, content: string, delayMs: number) =>
      post(pick(), `/threads/${threadId}/runs`, {
        assistant_id: 'ledger',
        input: { messages: [{ role: 'user', content }] },
        context: { delay_ms: delayMs, ledger_file: ledgerFile },
      });

    // long runs first: in flight on whichever replicas claim them when the database stops
    for (let n = 0; n < LONG_RUNS; n += 1) {
      const threadId = await createThread();
      longThreads.push(threadId);
      const res = await runOn(threadId, `long${n}`, 10_000);
      assert.equal(res.status, 200);
      sent.push({ threadId, content: `long${n}`, runId: ((await res.json()) as { run_id: string }).run_id });
    }
    shortThreads = await Promise.all(Array.from({ length: SHORT_THREADS }, () => createThread()));

    let stopping = false;
    const client = async (threadId: string, c: number) => {
      for (let i = 0; !stopping; i += 1) {
        const content = `c${c}.${i}`;
        const res = await runOn(threadId, content, 150).catch(() => null);
        if (res?.status === 200) sent.push({ threadId, content, runId: ((await res.json()) as { run_id: string }).run_id });
        else await res?.text();
        await sleep(res?.status === 200 ? 350 : 100);
      }
    };
    const load = shortThreads.map((threadId, c) => client(threadId, c));
    // the long runs follow short ones on their threads afterwards
    for (const [n, threadId] of longThreads.entries()) load.push(client(threadId, SHORT_THREADS + n));
    try {
      await outage();
    } finally {
      stopping = true;
      await Promise.all(load);
    }
    await check();
  });

  let downAt = 0;
  let upAt = 0;
  let killedAt = 0;
  let victim: ChildServer;

  async function outage(): Promise<void> {
    // every long run's graph is executing (not only claimed: a worker may take a while to begin), the load is under way
    const longIds = sent.slice(0, LONG_RUNS).map((s) => s.runId);
    const begun = () => (fs.existsSync(ledgerFile) ? readLedger().filter((l) => l.what === 'start' && longIds.includes(l.run)).length : 0);
    // (a loaded machine may take long to begin the last: one in flight is what the test needs)
    for (let i = 0; i < 600 && begun() < LONG_RUNS; i += 1) await sleep(50);
    assert.ok(begun() >= 1, 'a long run is executing');
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const holders = (await db.query<{ run_id: string; replica: string }>('SELECT run_id, replica FROM agentplane_run_claims WHERE run_id = ANY($1)', [longIds]))
      .rows;
    await db.end();
    await sleep(1_000);
    // the victim holds the fewest long runs: some are in flight on the survivors
    const replicaIdOf = (server: ChildServer): string => logLine(server.output(), 'agentplane listening')!.replica_id;
    victim = [...replicas].sort(
      (x, y) => holders.filter((h) => h.replica === replicaIdOf(x)).length - holders.filter((h) => h.replica === replicaIdOf(y)).length,
    )[0];

    downAt = Date.now();
    proxy.cut();
    // while the database is away, one replica dies: its runs are the only ones that may run again
    live.delete(victim);
    await victim.kill('SIGKILL');
    killedAt = Date.now();
    await sleep(OUTAGE_MS - (Date.now() - downAt));
    proxy.restore();
    upAt = Date.now();
    // load goes on for a while after the return
    await sleep(3_000);
  }

  function readLedger(): Line[] {
    return fs
      .readFileSync(ledgerFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
  }

  async function check(): Promise<void> {
    const longIds = sent.slice(0, LONG_RUNS).map((s) => s.runId);
    const outageMs = upAt - downAt;
    assert.ok(outageMs < LEASE_S * 1000, `the outage (${outageMs} ms) is shorter than the lease`);
    // every acknowledged run is waited for
    const survivors = [...live];
    for (const [n, entry] of sent.entries()) {
      const server = survivors[n % survivors.length];
      const joined = await fetch(`${server.url}/threads/${entry.threadId}/runs/${entry.runId}/join`, { signal: AbortSignal.timeout(60_000) });
      assert.equal(joined.status, 200);
      await joined.text();
      const run = (await (await fetch(`${survivors[(n + 1) % survivors.length].url}/threads/${entry.threadId}/runs/${entry.runId}`)).json()) as {
        status: string;
      };
      assert.equal(run.status, 'success', `run ${entry.content} (${entry.runId}) ended ${run.status}`);
    }
    for (const server of survivors) assert.equal(server.process.exitCode, null, `a survivor exited:\n${server.output().slice(-2000)}`);

    // what executed, where and when
    const lines = readLedger();
    const victimPid = victim.process.pid!;
    interface Execution {
      run: string;
      thread: string;
      pid: number;
      start: number;
      end: number;
      done: boolean;
    }
    const executions: Execution[] = [];
    const open = new Map<string, Execution>();
    for (const line of lines) {
      const key = `${line.run}/${line.pid}`;
      if (line.what === 'start') {
        const execution = { run: line.run, thread: line.thread, pid: line.pid, start: line.at, end: Infinity, done: false };
        executions.push(execution);
        open.set(key, execution);
      } else if (line.what === 'done') open.get(key)!.done = true;
      else {
        open.get(key)!.end = line.at;
        open.delete(key);
      }
    }
    // an execution the kill cut short ended with its process
    for (const execution of executions) if (execution.pid === victimPid && execution.end === Infinity) execution.end = killedAt;

    const byRun = groupBy(executions, (e) => e.run);
    const twice = [...byRun.values()].filter((runs) => runs.length > 1 && runs[0].pid !== victimPid);
    assert.deepEqual(
      twice.map((runs) => runs.map((e) => `${e.run} on ${e.pid} ${e.start}–${e.end}`).join(', ')),
      [],
      `runs executed twice, not first on the killed replica (outage ${downAt}–${upAt}, killed ${killedAt})`,
    );
    for (const runs of byRun.values()) assert.ok(runs.filter((e) => e.done).length <= 1 || runs[0].pid === victimPid, `${runs[0].run} finished twice`);

    const overlaps: string[] = [];
    for (const onThread of groupBy(executions, (e) => e.thread).values()) {
      const ordered = onThread.sort((x, y) => x.start - y.start);
      for (let i = 1; i < ordered.length; i += 1)
        if (ordered[i].start < ordered[i - 1].end)
          overlaps.push(`${ordered[i - 1].run} (${ordered[i - 1].pid}) and ${ordered[i].run} (${ordered[i].pid}) on ${ordered[i].thread}`);
    }
    assert.deepEqual(overlaps, [], 'executions overlapping on a thread');

    // the claims were kept: a long run in flight on a survivor across the whole outage ran once, through it
    const kept = longIds.filter((runId) => {
      const runs = byRun.get(runId) ?? [];
      return runs.length === 1 && runs[0].pid !== victimPid && runs[0].start < downAt && runs[0].end > upAt;
    });
    assert.ok(
      kept.length >= 1,
      `a long run on a survivor executed once across the outage ${downAt}–${upAt} (${JSON.stringify(longIds.map((id) => byRun.get(id)))})`,
    );

    // every acknowledged input is once in its thread
    for (const threadId of [...shortThreads, ...longThreads]) {
      const state = (await (await fetch(`${survivors[0].url}/threads/${threadId}/state`)).json()) as {
        values: { messages: { type: string; content: string }[] };
      };
      const humans = state.values.messages.filter((m) => m.type === 'human').map((m) => m.content);
      assert.equal(new Set(humans).size, humans.length, `thread ${threadId}: an input ran twice`);
      for (const entry of sent.filter((s) => s.threadId === threadId))
        assert.ok(humans.includes(entry.content), `acknowledged run ${entry.content} is missing`);
    }
    console.log(
      JSON.stringify({
        outage_ms: outageMs,
        runs: sent.length,
        executions: executions.length,
        kept_long_runs: kept.length,
        victim_runs_again: [...byRun.values()].filter((r) => r.length > 1).length,
      }),
    );
  }
});
