// The PostgreSQL ceiling of the replicas workload (issue 87): what PostgreSQL itself allows
// for 400 enqueued runs over 20 threads when it is sent exactly the statements agentplane
// sends for a run, and nothing else runs but a minimal client.
//
// Recording: a replica of the tree under test, on a fresh database of the bench's cluster,
// with scripts/bench/pgRecorder.mjs preloaded (every statement it sends, with its
// parameters, connection and answer, to a file). After its warm-up it is given one thread
// and RECORDED_RUNS runs on it one at a time (each left to finish alone); the latest typical
// one of the last three (typicalRecording.ts) is the run replayed, its thread then holding
// about as many runs as a thread of the workload has on average. The statements a run's POST sent (the create: thread lock, reads, enqueue,
// unlock), the claim that took it, and those its execution sent (first reads, event
// appends, the end's reads and fenced write, the log's end) are told apart by time and by
// the ids they name. The recording replica is stopped; its database is the replay's.
//
// Replay (a minimal client, node-postgres as agentplane uses it): a pool of 10 connections
// for the statements and one of 10 for the thread locks (agentplane's defaults), a session
// listening on the channels the replica listened on. Each of 20 threads is made with the
// statements of the recorded thread creation; each thread's runs are then created one after
// another with the create's statements, and one claimer (woken by every end and by every
// enqueue that answers it woke the claimers, one claim at a time, as the run engine does)
// claims with the recorded claim statement
// and executes each run it took with the execution's statements, its token the one its
// claim answered. Every id the recorded run made is replaced by a new one per replayed run
// (the thread's by the replayed thread's), every other parameter is sent as recorded: same
// texts, same prepared names, same transactions on one connection; the unlock sent and not
// waited for, as the replica does (PgCoordination.serialize).
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { expectStatus as ok, startAgentplane, type Agentplane } from './agentplane.ts';
import { REPLICA_RUNS, REPLICA_THREADS } from './replicas.ts';
import { extraStatements, signatureOf, typicalIndex } from './typicalRecording.ts';

/** Runs the recording thread is given; one of the last COMPARED_RUNS is replayed. */
export const RECORDED_RUNS = 10;
/** The last runs of the recording compared to pick a typical one to replay. */
const COMPARED_RUNS = 3;
const RECORDER = path.join(import.meta.dirname, 'pgRecorder.mjs');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const POOL_SIZE = 10;
const FINISH_TIMEOUT_MS = 120_000;

interface Entry {
  at: number;
  ms: number;
  pid: number;
  text: string;
  name?: string;
  params?: unknown[];
  rows?: unknown[];
  error?: string;
}

/** One run's statements as agentplane sent them, split by what sent them. */
export interface RecordedRun {
  /** The graph the run executed. */
  graph: string;
  threadId: string;
  runId: string;
  token: string;
  /** Ids the run made (replaced per replayed run); the thread's id is replaced by the replayed thread's. */
  madeIds: string[];
  /** Ids the thread's creation made. */
  threadIds: string[];
  thread: Entry[];
  create: Entry[];
  claim: Entry;
  execute: Entry[];
  /** The channels the replica listened on. */
  listen: string[];
}

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const uuidsOf = (value: unknown): string[] => JSON.stringify(value ?? null).match(UUID) ?? [];
const mentions = (entry: Entry, ids: string[]) => {
  const text = JSON.stringify(entry.params ?? []);
  return ids.some((id) => text.includes(id));
};

/** Records one run of `graph` on a fresh replica of the tree at `root` (see the file's head). */
export async function recordRun(options: {
  url: string;
  work: string;
  key: string;
  tenant: string;
  graph: string;
  workers: string | undefined;
  root?: string;
}): Promise<RecordedRun> {
  const file = path.join(options.work, `pg-record-${options.graph}.jsonl`);
  fs.rmSync(file, { force: true });
  const ap: Agentplane = await startAgentplane({
    dataDir: path.join(options.work, `data-record-${options.graph}`),
    workDir: path.join(options.work, `record-${options.graph}`),
    key: options.key,
    tenant: options.tenant,
    root: options.root,
    env: { DATABASE_URL: options.url, AGENTPLANE_RUN_WORKERS: options.workers, BENCH_PG_RECORD: file },
    nodeArgs: ['--import', RECORDER],
  });
  const windows: { from: number; to: number; runId?: string }[] = [];
  let threadId = '';
  try {
    const createRun = async (thread: string, content: string) => {
      const res = await ap.api(`/threads/${thread}/runs`, {
        method: 'POST',
        json: { assistant_id: options.graph, input: { messages: [{ role: 'user', content }] }, multitask_strategy: 'enqueue' },
      });
      ok('POST /threads/{id}/runs', res, 200);
      return res.body.run_id as string;
    };
    const finished = async (thread: string, runId: string) => {
      for (const started = performance.now(); performance.now() - started < FINISH_TIMEOUT_MS; await sleep(50)) {
        const res = await ap.api(`/threads/${thread}/runs/${runId}`);
        if (res.body?.status === 'success') return;
      }
      throw new Error(`recorded run ${runId} did not finish`);
    };
    // warm-up: code paths, the graph's module, the pool's connections
    const warm = (await ap.api('/threads', { method: 'POST', json: {} })).body.thread_id as string;
    for (let i = 0; i < 5; i += 1) await finished(warm, await createRun(warm, `warm ${i}`));
    await sleep(300);
    let from = now();
    const made = await ap.api('/threads', { method: 'POST', json: {} });
    ok('POST /threads', made, 200);
    threadId = made.body.thread_id;
    await sleep(300);
    windows.push({ from, to: now() });
    for (let i = 0; i < RECORDED_RUNS; i += 1) {
      from = now();
      const runId = await createRun(threadId, `t0 r${i}`);
      // long enough for an echo run to end alone; its end is checked after the window
      await sleep(400);
      windows.push({ from, to: now(), runId });
      await finished(threadId, runId);
      await sleep(100);
    }
  } finally {
    await ap.stop();
  }
  const entries = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Entry)
    .sort((a, b) => a.at - b.at);
  const within = (w: { from: number; to: number }) => entries.filter((e) => e.at >= w.from && e.at < w.to);
  const known = new Set(entries.filter((e) => e.at < windows[0].from).flatMap((e) => uuidsOf(e.params)));
  const threadWindow = within(windows[0]);
  const threadIds = [...new Set(threadWindow.flatMap((e) => uuidsOf(e.params)))].filter((id) => !known.has(id));
  const thread = threadWindow.filter((e) => mentions(e, [threadId]));
  // the last few runs, each split; the one replayed is the latest typical one (typicalRecording.ts)
  const attempts = windows.slice(-COMPARED_RUNS).map((w) => {
    try {
      return splitRun(entries, w.from, within(w), w.runId!, threadId);
    } catch (error) {
      return error as Error;
    }
  });
  const split = attempts.filter((r): r is ReturnType<typeof splitRun> => !(r instanceof Error));
  if (!split.length) throw attempts.at(-1);
  const signatures = split.map((r) => signatureOf([...r.create, r.claim, ...r.execute]));
  const chosen = split[typicalIndex(signatures)];
  for (const [i, r] of split.entries()) {
    if (signatures[i] === signatureOf([...chosen.create, chosen.claim, ...chosen.execute])) continue;
    const extra = extraStatements([...r.create, r.claim, ...r.execute], [...chosen.create, chosen.claim, ...chosen.execute]);
    process.stderr.write(
      `  the ceiling's recording: run ${r.runId} left out, it sent ${extra.length ? `besides a typical run's: ${extra.join(' | ')}` : 'fewer or other statements than a typical run'}\n`,
    );
  }
  const { runId, token, claim, create, execute, madeIds } = chosen;
  const listen = [
    ...new Set(
      entries
        .map((e) => /^LISTEN\s+(.+)$/i.exec(e.text.trim())?.[1])
        .filter((c): c is string => !!c)
        .map((c) => c.replace(/^"|"$/g, '')),
    ),
  ];
  return { graph: options.graph, threadId, runId, token, madeIds, threadIds, thread, create, claim, execute, listen };
}

/** One recorded run's statements, told apart by time and by the ids they name (see the file's head). */
function splitRun(entries: Entry[], from: number, window: Entry[], runId: string, threadId: string) {
  const before = new Set(entries.filter((e) => e.at < from).flatMap((e) => [...uuidsOf(e.params), ...uuidsOf(e.rows)]));
  // the claim: the statement answering the run without naming it
  const claim = window.find((e) => !mentions(e, [runId]) && JSON.stringify(e.rows ?? []).includes(runId));
  if (!claim) throw new Error('the recorded run has no claim among its statements');
  const claimed = (claim.rows?.[0] as { claimed?: { doc: { run_id: string }; token: string }[] } | undefined)?.claimed;
  const token = claimed?.find((c) => c.doc.run_id === runId)?.token;
  if (!token) throw new Error(`the claim's answer is not the shape the replay reads (claimed: [{doc, token}]): ${JSON.stringify(claim.rows).slice(0, 300)}`);
  const ours = (e: Entry) => e !== claim && mentions(e, [runId, threadId, token]);
  const isLock = (e: Entry) => /pg_advisory_(un)?lock\(/.test(e.text);
  const create = window.filter((e) => ours(e) && (e.at < claim.at || isLock(e)));
  const execute = window.filter((e) => ours(e) && !create.includes(e) && e.at >= claim.at + claim.ms);
  const madeIds = [...new Set(window.flatMap((e) => uuidsOf(e.params)))].filter((id) => !before.has(id) && id !== token);
  return { runId, token, claim, create, execute, madeIds };
}

/** `value` with every id of `ids` replaced by its new one (strings anywhere inside it, JSON text included). */
function replaced(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === 'string') return value.replace(UUID, (id) => ids.get(id) ?? id);
  if (Array.isArray(value)) return value.map((v) => replaced(v, ids));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaced(v, ids)]));
  return value;
}

/**
 * Sends `entries` in order: a transaction (BEGIN … COMMIT on one connection) on one client, a
 * thread lock on a lock session held until its unlock, whose answer is not waited for.
 */
async function send(entries: Entry[], ids: Map<string, string>, pools: { store: pg.Pool; locks: pg.Pool }): Promise<unknown[][]> {
  const answers: unknown[][] = [];
  let lock: pg.PoolClient | null = null;
  const open = new Map<number, pg.PoolClient>();
  try {
    for (const e of entries) {
      const query = { text: e.text, values: replaced(e.params ?? [], ids) as unknown[], ...(e.name ? { name: e.name } : {}) };
      if (/pg_advisory_lock\(/.test(e.text)) {
        lock = await pools.locks.connect();
        answers.push((await lock.query(query)).rows);
      } else if (/pg_advisory_unlock\(/.test(e.text) && lock) {
        // as PgCoordination.serialize: the unlock is sent and not waited for (the creation
        // answers then); its connection goes back to the pool when the answer comes
        const held = lock;
        lock = null;
        held.query(query).then(
          () => held.release(),
          () => held.release(true),
        );
        answers.push([]);
      } else if (/^\s*BEGIN\b/i.test(e.text)) {
        const client = await pools.store.connect();
        open.set(e.pid, client);
        await client.query(query);
      } else if (open.has(e.pid)) {
        const client = open.get(e.pid)!;
        answers.push((await client.query(query)).rows);
        if (/^\s*(COMMIT|ROLLBACK)\b/i.test(e.text)) {
          client.release();
          open.delete(e.pid);
        }
      } else {
        answers.push((await pools.store.query(query)).rows);
      }
    }
  } finally {
    lock?.release();
    for (const client of open.values()) client.release();
  }
  return answers;
}

export interface CeilingFigure {
  runs: number;
  threads: number;
  seconds: number;
  runsPerSecond: number;
  /** Statements sent per run by the replay (the create's, the execution's, and the claims' share). */
  statementsPerRun: number;
  claims: number;
}

/**
 * One round of the replay against `url` (the recording's database): `counts.threads` threads
 * made, then `counts.runs` runs over them, timed from the first create to the last run's end.
 */
export async function replayCeiling(url: string, recorded: RecordedRun, counts = { threads: REPLICA_THREADS, runs: REPLICA_RUNS }): Promise<CeilingFigure> {
  const pools = { store: new pg.Pool({ connectionString: url, max: POOL_SIZE }), locks: new pg.Pool({ connectionString: url, max: POOL_SIZE }) };
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  try {
    for (const channel of recorded.listen) await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    const threads = await Promise.all(
      Array.from({ length: counts.threads }, async () => {
        const ids = new Map(recorded.threadIds.map((id) => [id, randomUUID()]));
        await send(recorded.thread, ids, pools);
        return ids.get(recorded.threadId) ?? recorded.threadId;
      }),
    );
    const perThread = Math.ceil(counts.runs / counts.threads);
    const waiting = new Map<string, Map<string, string>>();
    const room = Number(recorded.claim.params?.[1] ?? 1);
    let inflight = 0;
    let ended = 0;
    let claims = 0;
    let statements = 0;
    let failure: unknown = null;
    let claiming = false;
    let again = false;
    let allDone: () => void = () => {};
    const done = new Promise<void>((resolve) => (allDone = resolve));
    const execute = async (runId: string, token: string) => {
      const ids = waiting.get(runId)!;
      waiting.delete(runId);
      ids.set(recorded.token, token);
      await send(recorded.execute, ids, pools);
      statements += recorded.execute.length;
      inflight -= 1;
      ended += 1;
      if (ended === perThread * counts.threads) allDone();
      wake();
    };
    // one claim at a time, a wake-up meanwhile answered by one more claim after it (the run engine's loop)
    const wake = () => {
      if (claiming) {
        again = true;
        return;
      }
      claiming = true;
      void (async () => {
        try {
          do {
            again = false;
            if (inflight >= room) break;
            const params = [...(recorded.claim.params ?? [])];
            params[1] = room - inflight;
            const { rows } = await pools.store.query({
              text: recorded.claim.text,
              values: params,
              ...(recorded.claim.name ? { name: recorded.claim.name } : {}),
            });
            claims += 1;
            statements += 1;
            for (const c of (rows[0]?.claimed ?? []) as { doc: { run_id: string }; token: string }[]) {
              inflight += 1;
              execute(c.doc.run_id, c.token).catch((error) => (failure ??= error));
            }
          } while (again);
        } catch (error) {
          failure ??= error;
        } finally {
          claiming = false;
        }
      })();
    };
    const started = performance.now();
    const timeout = setTimeout(() => (failure ??= new Error('the replay did not finish in time')), FINISH_TIMEOUT_MS);
    await Promise.all(
      threads.map(async (threadId) => {
        for (let i = 0; i < perThread && !failure; i += 1) {
          const ids = new Map<string, string>(recorded.madeIds.map((id) => [id, randomUUID()]));
          ids.set(recorded.threadId, threadId);
          waiting.set(ids.get(recorded.runId)!, ids);
          const answers = await send(recorded.create, ids, pools);
          statements += recorded.create.length;
          // as the engine: no claim when the enqueue answered that the thread's run in flight will wake the claimer at its end
          if (!answers.some((rows) => rows.some((row) => (row as { woke?: unknown }).woke === false))) wake();
        }
      }),
    );
    await Promise.race([done, new Promise((resolve) => setInterval(() => failure && resolve(undefined), 50).unref())]);
    clearTimeout(timeout);
    if (failure) throw failure;
    const seconds = (performance.now() - started) / 1000;
    const runs = perThread * counts.threads;
    return {
      runs,
      threads: counts.threads,
      seconds: Math.round(seconds * 100) / 100,
      runsPerSecond: Math.round((runs / seconds) * 10) / 10,
      statementsPerRun: Math.round((statements / runs) * 10) / 10,
      claims,
    };
  } finally {
    await listener.end().catch(() => undefined);
    await Promise.all([pools.store.end(), pools.locks.end()]);
  }
}
