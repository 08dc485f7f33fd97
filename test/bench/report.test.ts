// The bench report writer turns figures into docs/benchmarks.{json,md,svg}: checked here with
// made-up figures (the bench itself is `npm run bench`, never part of the tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {
  DEFAULT_WORKERS_SETTING,
  deriveRatios,
  ROUTE_BY_ID,
  ROUTE_LIST,
  SHARED_GRAPH,
  type Measured,
  type Report,
  type Target,
  type UnderLoadFigure,
} from '../../scripts/bench/figures.ts';
import { baselineRefFrom, nodeModulesFit } from '../../scripts/bench/baseline.ts';
import type { FreshRatio } from '../../scripts/bench/freshPeer.ts';
import type { RouteCpuFigure } from '../../scripts/bench/routeCpu.ts';
import { deliveryOf } from '../../scripts/bench/fanoutClients.ts';
import { fanoutSection, type FanoutFigure } from '../../scripts/bench/fanout.ts';
import { medianReplicaFigure } from '../../scripts/bench/replicas.ts';
import { medianUnderLoad } from '../../scripts/bench/underLoad.ts';
import type { LoadResult } from '../../scripts/bench/load.ts';
import { baselineSection, mergeReports, routeCpuSection, writeReport } from '../../scripts/bench/report.ts';
import { dumpTotals } from '../../scripts/bench/routeInstructions.ts';
import { tempDir } from '../support/tempDirs.ts';

const load = (rps: number, p50Ms: number): LoadResult => ({
  requests: rps * 5,
  seconds: 5,
  rps,
  p50Ms,
  p99Ms: p50Ms * 4,
  meanMs: p50Ms * 1.2,
  non2xx: 0,
  errors: 0,
  connections: 10,
});

function fakeReport(): Report {
  const base: Measured = {
    generatedAt: '2026-01-01T00:00:00.000Z',
    seconds: 300,
    machine: { cpuModel: 'Test CPU', cores: 2, memoryGB: 8, os: 'Linux 6', node: '20.0.0', loadAverageAtStart: [1, 1, 1], loadAverageAtEnd: [2, 1, 1] },
    versions: { agentplane: '0.1.0' },
    method: ['made-up figures <for a test>'],
    http: [
      { route: ROUTE_BY_ID, server: 'agentplane', ...load(8000, 0.5), cpuUsPerRequest: 40 },
      { route: ROUTE_BY_ID, server: 'ceiling', ...load(10000, 0.3), cpuUsPerRequest: 20 },
      { route: ROUTE_BY_ID, server: 'prism', ...load(500, 12), cpuUsPerRequest: 1500 },
      { route: ROUTE_LIST, server: 'agentplane', ...load(4000, 1), cpuUsPerRequest: 100 },
    ],
    seeding: [{ what: 'deployments to 100,000', count: 99_900, seconds: 30, perSecond: 3330, how: 'through the API' }],
    writes: [
      { op: 'POST /v2/deployments', existing: 100, ...load(3000, 0.3) },
      { op: 'POST /v2/deployments', existing: 100_000, ...load(2500, 0.45) },
      { op: 'PATCH /v2/deployments/{id}', existing: 100, ...load(3000, 0.3) },
      { op: 'PATCH /v2/deployments/{id}', existing: 100_000, ...load(2000, 0.9) },
      { op: 'GET /v2/deployments?limit=20', existing: 100, ...load(3000, 0.5) },
      { op: 'POST /v2/deployments', existing: 100, store: 'postgresql', ...load(300, 3) },
      { op: 'POST /v2/deployments', existing: 100_000, store: 'postgresql', ...load(250, 4.5) },
      { op: 'PATCH /v2/deployments/{id}', existing: 100, store: 'postgresql', ...load(600, 1.5) },
      { op: 'PATCH /v2/deployments/{id}', existing: 100_000, store: 'postgresql', ...load(500, 1.8) },
      { op: 'GET /v2/deployments?limit=20', existing: 100, store: 'postgresql', ...load(100, 10) },
      { op: 'GET /v2/deployments?limit=20', existing: 100_000, store: 'postgresql', ...load(90, 11) },
    ],
    replicas: [
      {
        replicas: 1,
        graph: 'echo',
        workers: '0',
        threads: 20,
        runs: 400,
        seconds: 5,
        runsPerSecond: 80,
        failed: 0,
        threadsWrong: 0,
        loadBefore: [1.5, 1, 1],
        loadAfter: [2, 1, 1],
        replicaCpuSeconds: 4,
        cpuMsPerRun: 10,
        statementsPerRun: 34.5,
      },
      {
        replicas: 2,
        graph: 'echo',
        workers: '0',
        threads: 20,
        runs: 400,
        seconds: 4,
        runsPerSecond: 100,
        failed: 0,
        threadsWrong: 0,
        loadBefore: [2.25, 1, 1],
        loadAfter: [3, 1, 1],
        replicaCpuSeconds: 5,
      },
    ],
    runs: [
      { server: 'agentplane', graph: SHARED_GRAPH, scenario: 'one thread', runs: 100, seconds: 1, runsPerSecond: 100, failed: 0 },
      { server: 'peer', graph: SHARED_GRAPH, scenario: 'one thread', runs: 100, seconds: 2, runsPerSecond: 50, failed: 0 },
      { server: 'agentplane', graph: 'echo', scenario: 'one thread', runs: 100, seconds: 0.2, runsPerSecond: 500, failed: 0 },
    ],
    a2a: { server: 'agentplane', ...load(900, 2) },
    memory: {
      idleMB: 120,
      threads100kMB: 170,
      threads100kPeakMB: 330,
      runs10kMB: 200,
      runs10kPeakMB: 400,
      settleSamples: { threads100k: [330, 170], runs10k: [400, 200] },
      startMs: 650,
      startWith100kMs: null,
      peerIdleMB: 350,
      peerStartMs: 3000,
    },
    peer: { measured: true, package: '@langchain/langgraph-cli', version: '1.5.1', reason: null },
    skipped: [{ what: 'something', reason: 'a reason' }],
  };
  return { ...base, ...deriveRatios(base) };
}

test('targets are read from the figures: met, missed, or not measured', () => {
  const { targets, ratios } = fakeReport();
  const byName = (prefix: string) => targets.find((t) => t.name.startsWith(prefix))!;
  assert.equal(ratios[`${ROUTE_BY_ID}: agentplane ÷ ceiling (req/s)`], 0.8);
  assert.equal(byName('GET by id vs bare').met, true);
  assert.equal(byName('GET by id vs Prism').met, true);
  assert.equal(byName('Write p50 growth').met, false); // POST 1.5×, PATCH 3×: the worse one decides
  assert.equal(ratios['PATCH /v2/deployments/{id}: p50 at 100k ÷ p50 at 100'], 3);
  // the long-lived servers' ratio is shown, not judged: the fresh-start ones are
  assert.equal(byName('Enqueued runs/s vs upstream').met, null);
  assert.equal(byName('LangGraph runs/s vs upstream JS dev server, every server started fresh').met, null, 'no fresh-start rounds: not measured');
  const fresh = fakeReport();
  const ratio = (scenario: FreshRatio['scenario'], start: FreshRatio['start'], [value, min, max]: number[]): FreshRatio => ({
    scenario,
    start,
    versus: 'peer',
    ratio: value,
    min,
    max,
    rounds: 5,
  });
  fresh.fresh = {
    figures: [],
    ratios: [
      ratio('one thread', 'warm-up', [3.8, 3.6, 4.1]),
      ratio('100 threads', 'warm-up', [2.1, 1.9, 2.4]),
      ratio('one thread', 'no warm-up', [2, 1.8, 2.2]),
      ratio('100 threads', 'no warm-up', [2.6, 2.5, 2.8]),
    ],
  };
  const freshTargets = deriveRatios(fresh).targets;
  const warm = freshTargets.find((t) => t.name.startsWith('LangGraph runs/s vs upstream JS dev server, every server started fresh'))!;
  assert.equal(warm.met, false, '100 threads at 2.1× misses 3×');
  assert.equal(warm.value, 'one thread 3.8× (rounds 3.6–4.1, n=5), 100 threads 2.1× (rounds 1.9–2.4, n=5)');
  assert.equal(freshTargets.find((t) => t.name.startsWith('The same from a fresh start without any warm-up'))!.met, true);
  // driven by both SDK clients, the lower ratio is the one judged and shown (issue 86)
  const clients = fakeReport();
  clients.fresh = {
    figures: [],
    ratios: [
      { ...ratio('100 threads', 'warm-up', [5.5, 4.9, 6]), client: 'default client' },
      { ...ratio('100 threads', 'warm-up', [1.9, 1.84, 1.91]), client: 'maxConcurrency 64' },
      { ...ratio('one thread', 'warm-up', [4.4, 4.25, 4.65]), client: 'default client' },
      { ...ratio('one thread', 'warm-up', [4.5, 4.3, 4.7]), client: 'maxConcurrency 64' },
    ],
  };
  const lower = deriveRatios(clients).targets.find((t) => t.name.startsWith('LangGraph runs/s vs upstream JS dev server, every server started fresh'))!;
  assert.equal(lower.met, false, '5.5× with the default client, 1.9× with maxConcurrency 64: the lower misses 3×');
  assert.equal(
    lower.value,
    'one thread 4.4× (rounds 4.25–4.65, n=5, the lower client: default client), 100 threads 1.9× (rounds 1.84–1.91, n=5, the lower client: maxConcurrency 64)',
  );
  // the least server's ratio of upstream (issue 86) is shown beside agentplane's, never judged as agentplane's
  const least = fakeReport();
  least.fresh = {
    figures: [],
    ratios: [
      { ...ratio('100 threads', 'warm-up', [3.2, 2.9, 3.5]), client: 'maxConcurrency 64' },
      { ...ratio('100 threads', 'warm-up', [2.9, 2.7, 3.3]), client: 'maxConcurrency 64', of: 'runs-ceiling' },
      { ...ratio('100 threads', 'warm-up', [1.1, 0.9, 1.2]), client: 'maxConcurrency 64', versus: 'runs-ceiling' },
    ],
  };
  const withLeast = deriveRatios(least).targets.find((t) => t.name.startsWith('LangGraph runs/s vs upstream JS dev server, every server started fresh'))!;
  assert.equal(withLeast.met, true, "agentplane's 3.2× is judged, not the ceiling's 2.9×");
  assert.match(
    withLeast.value,
    /100 threads 3\.2× \(rounds 2\.9–3\.5, n=5, the lower client: maxConcurrency 64\); the least server for these runs \(.*\) 2\.9× \(rounds 2\.7–3\.3.*\) upstream on 100 threads, agentplane 1\.1× \(rounds 0\.9–1\.2.*\) of it$/,
  );
  // every shared route at least as cheap as the route baseline, or missed
  const routes = fakeReport();
  const route = (name: RouteCpuFigure['route'], value: number): RouteCpuFigure => ({
    route: name,
    currentUs: 50,
    baselineUs: 50 * value,
    ratio: value,
    ratioMin: Math.round((value - 0.1) * 100) / 100,
    ratioMax: Math.round((value + 0.1) * 100) / 100,
    rounds: 20,
  });
  routes.routeCpu = { ref: 'd5486dc', commit: 'd5486dc0000', figures: [route('GET /ok', 1.1), route('POST /threads', 0.9)] };
  const routeTarget = deriveRatios(routes).targets.find((t) => t.name.startsWith('Server CPU per request on the routes shared with `d5486dc`'))!;
  assert.equal(routeTarget.met, false, 'POST /threads at 0.9× misses');
  assert.match(routeTarget.value, /`POST \/threads` 0\.9× \(50 vs 45 µs; rounds 0\.8–1\)/);
  // the same runs in process and by LangGraph alone (a reference, not a bound) are read beside the figure
  const beside = fakeReport();
  beside.runs.push(
    { server: 'inprocess', graph: SHARED_GRAPH, scenario: 'one thread', runs: 100, seconds: 0.8, runsPerSecond: 125, failed: 0 },
    { server: 'graph-alone', graph: SHARED_GRAPH, scenario: 'one thread', runs: 100, seconds: 1, runsPerSecond: 110, failed: 0 },
  );
  assert.equal(
    deriveRatios(beside).targets.find((t) => t.name.startsWith('Enqueued runs/s vs upstream'))!.value,
    'one thread 2×, 100 threads not measured; in process (AGENTPLANE_RUN_WORKERS=0): one thread 2.5×, 100 threads n/a; the same graph run by LangGraph alone with its MemorySaver, no server: one thread: 110 runs/s, 2.2× upstream (agentplane 0.91× of it, upstream 0.46×)',
  );
  assert.equal(byName('Start to first 200').met, true);
  // on PostgreSQL: POST 1.5×, PATCH 1.2× from 100 to 100k; the list is read beside them
  assert.equal(byName('Write p50 growth on PostgreSQL').met, true);
  assert.equal(ratios['GET /v2/deployments?limit=20 on PostgreSQL: p50 at 100k ÷ p50 at 100'], 1.1);
  assert.equal(ratios['GET /v2/deployments?limit=20 at 100: p50 on PostgreSQL ÷ p50 on the embedded store'], 20);
  assert.equal(ratios['enqueued runs/s on one PostgreSQL: two replicas ÷ one'], 1.25);
  assert.equal(byName('Enqueued runs/s on one PostgreSQL').met, true);
  assert.equal(byName('Enqueued runs/s on one PostgreSQL').value, '1 replica 80 runs/s (load 1.5), 2 replicas 100 runs/s (load 2.25): 1.25×');
  const broken = fakeReport();
  broken.replicas![1].threadsWrong = 3;
  const { targets: brokenTargets } = deriveRatios(broken);
  const replicaTarget = brokenTargets.find((t) => t.name.startsWith('Enqueued runs/s on one PostgreSQL'))!;
  assert.equal(replicaTarget.met, false, 'runs done twice, lost or out of order are not a throughput');
  assert.match(replicaTarget.value, /2 replicas: 3 of 20 threads with a wrong history/);
  // no baseline replicas in this report: the cost per run against the baseline is not measured
  assert.equal(byName('PostgreSQL statements and replica CPU per enqueued run').met, null);
  const withBase = fakeReport();
  withBase.replicas!.push({ ...withBase.replicas![0], server: 'baseline', statementsPerRun: 45.5, cpuMsPerRun: 9.9 });
  const cost = deriveRatios(withBase).targets.find((t) => t.name.startsWith('PostgreSQL statements and replica CPU'))!;
  assert.equal(cost.met, false, 'statements fewer, but 10 ms of replica CPU per run against 9.9 is more');
  assert.equal(cost.value, 'statements 34.5 vs 45.5 (0.758×); replica CPU 10 ms vs 9.9 ms (1.01×)');
  withBase.replicas![2].cpuMsPerRun = 10;
  assert.equal(deriveRatios(withBase).targets.find((t) => t.name.startsWith('PostgreSQL statements and replica CPU'))!.met, true);
  assert.ok(
    deriveRatios(withBase).comparisons.some(
      (c) => c.what === 'PostgreSQL statements per run, 1 replica on PostgreSQL, plain-function echo' && c.ratio === 0.758,
    ),
    'the replicas are compared with the baseline too',
  );
  assert.equal(byName('RSS with 100k threads').met, true);
});

test('fan-out, replay and statements per run are issue 57 targets: not measured without figures, met or missed with them', () => {
  const without = deriveRatios(fakeReport()).targets;
  const named = (targets: Target[], prefix: string) => targets.find((t) => t.name.startsWith(prefix))!;
  assert.equal(named(without, '`GET /ok` p99 under').met, null);
  assert.equal(named(without, 'Replay from `since`').met, null);
  const fanout = {
    subscribers: { sse: 500, websocket: 500 },
    threads: 20,
    runs: 300,
    eventsReceived: 90_000,
    failedSubscribers: 0,
    idle: { okP99Ms: 2, firstEventMs: 10 },
    runsAlone: { okP99Ms: 3, firstEventMs: 12 },
    loaded: { okP99Ms: 5, firstEventMs: 15 },
    okP99Ratio: 2.5,
    firstEventRatio: 1.5,
    replay: { shortHistoryEvents: 30, longHistoryEvents: 1000, returned: 9, shortMs: 4, longMs: 4.4, ratio: 1.1 },
  };
  const withFigures = deriveRatios({ ...fakeReport(), fanout }).targets;
  const ok = '`GET /ok` p99 under';
  assert.equal(named(withFigures, ok).met, false, 'an older figure without the ceiling misses');
  assert.match(named(withFigures, ok).name, /1,000 subscribers/);
  assert.equal(named(withFigures, "A new run's first event under").met, true, 'first event at 1.5× idle');
  const ceiling = (okP99Ms: number, lostEvents = 0) => ({
    ...fanout,
    lostEvents,
    ceiling: {
      eventsPerRun: 7,
      runsPerSecondPerThread: 1,
      opened: 1000,
      failedSubscribers: 0,
      eventsReceived: 1,
      lostEvents: 0,
      idle: { okP99Ms: 1 },
      loaded: { okP99Ms, okSamples: 400 },
      delivery: null,
    },
    okP99VsCeiling: 5 / okP99Ms,
  });
  const okAgainst = (f: FanoutFigure) => named(deriveRatios({ ...fakeReport(), fanout: f }).targets, ok);
  assert.equal(okAgainst(ceiling(4)).met, true, '2.5× idle and 1.25× the ceiling');
  assert.equal(okAgainst(ceiling(3)).met, false, '1.67× the ceiling');
  assert.equal(okAgainst(ceiling(4, 1)).met, false, 'an event lost');
  assert.equal(okAgainst({ ...ceiling(4), okP99Ratio: 5.5 }).met, false, '5.5× idle');
  // the extra figure (the ceiling again with agentplane's runs beside it) is reported, labelled, and judges nothing
  const beside = {
    ...ceiling(3),
    ceiling: { ...ceiling(3).ceiling, besideRuns: { okP99Ms: 4, okSamples: 400, delivery: null, runs: 250, lostEvents: 0, failedSubscribers: 0 } },
  };
  assert.equal(okAgainst(beside).met, false, 'still 1.67× the ceiling taken without the runs');
  const section = fanoutSection(beside).join('\n');
  assert.match(section, /taken with agentplane's runs stopped/);
  assert.match(section, /Extra, not the target's figure .*250 runs.*`\/ok` p99 4 ms.*1\.25× that/);
  assert.doesNotMatch(fanoutSection(ceiling(3)).join('\n'), /Extra, not the target's/);
  assert.equal(named(withFigures, 'Replay from `since`').met, true);
  const delivery = "An event's delivery under 1,000 subscribers, made → read, p99 (issue 67)";
  assert.equal(named(withFigures, delivery).met, null, 'an older figure without delivery: not measured');
  const delivered = (p99Ms: number) =>
    named(deriveRatios({ ...fakeReport(), fanout: { ...fanout, delivery: { subscribers: 100, events: 20_000, p50Ms: 4, p99Ms } } }).targets, delivery);
  assert.equal(delivered(50).met, true);
  assert.equal(delivered(51).met, false);
  assert.equal(delivered(51).value, 'p99 51 ms, p50 4 ms (20,000 events at 100 sampled subscribers)');
  assert.match(delivered(51).why!, /profiles\/fanout-main\.svg/);
  const statements = named(withFigures, 'PostgreSQL statements per enqueued run, one replica, plain graph (issue 67)');
  assert.equal(statements.goal, '≤ 12');
  assert.equal(statements.met, false);
  assert.ok(statements.why && /pg_stat_statements/.test(statements.why) && /profiles\/postgres-replica\.svg/.test(statements.why));
});

test('issue 67 asks the PostgreSQL targets of the LangGraph echo with run workers too: read from its own replicas, not from the plain graph', () => {
  const name =
    'PostgreSQL statements per run and one replica ÷ the embedded store, LangGraph echo graph with the default run workers, same workload in the same rounds (issue 67)';
  const target = (m: Measured) => deriveRatios(m).targets.find((t) => t.name === name)!;
  assert.equal(target(fakeReport()).met, null, 'no LangGraph replicas: not measured');
  assert.equal(target(fakeReport()).value, 'statements not counted; PostgreSQL not measured, embedded store not measured');

  const plainOne = fakeReport().replicas![0];
  const withLangGraph = (statementsPerRun: number, pgRunsPerSecond: number) => {
    const report = fakeReport();
    const langGraph = { ...plainOne, graph: SHARED_GRAPH, workers: 'default', cpuMsPerRun: 20 };
    report.replicas!.push({ ...langGraph, statementsPerRun, runsPerSecond: pgRunsPerSecond });
    const { statementsPerRun: _none, ...embedded } = langGraph;
    report.replicas!.push({ ...embedded, store: 'embedded', runsPerSecond: 60, cpuMsPerRun: 12 });
    return report;
  };
  const missed = target(withLangGraph(18, 40));
  assert.equal(missed.met, false, '18 statements a run is over 12');
  assert.equal(missed.value, 'statements 18; PostgreSQL 40 runs/s, embedded store 60 runs/s: 0.667×');
  assert.match(missed.why!, /20 ms of CPU a run \(main thread and workers\) against the embedded process's 12 ms/);
  assert.equal(target(withLangGraph(11.5, 40)).met, true, '11.5 statements, 0.67×');
  assert.equal(target(withLangGraph(11.5, 25)).met, false, '25 runs/s against 60 is 0.42×');

  // the plain graph's targets, ratios and comparisons read as they did without the LangGraph replicas
  const [before, after] = [deriveRatios(fakeReport()), deriveRatios(withLangGraph(18, 40))];
  assert.deepEqual(after.ratios, before.ratios);
  assert.deepEqual(
    after.targets.filter((t) => t.name !== name),
    before.targets.filter((t) => t.name !== name),
  );
  assert.deepEqual(after.comparisons, before.comparisons);
  // and the replicas table names the graph of each row
  assert.match(renderOf(withLangGraph(18, 40)), /\| current \| PostgreSQL \| 1 \| LangGraph echo \| default \|/);
});

test('one PostgreSQL replica against the embedded store is an issue 67 target (≥ 0.5×), and the embedded figure is in no PostgreSQL ratio, target or comparison', () => {
  const name = 'Enqueued runs/s, one PostgreSQL replica ÷ the embedded store, plain graph, same workload in the same rounds (issue 67)';
  const ratioName = 'enqueued runs/s, one replica: PostgreSQL ÷ the embedded store (same workload, same rounds)';
  const target = (m: Measured) => deriveRatios(m).targets.find((t) => t.name === name)!;
  // the current tree's one process on the embedded store: faster, cheaper, no statements
  const { statementsPerRun: _none, ...pgOne } = fakeReport().replicas![0];
  const embedded = (runsPerSecond: number) => ({ ...pgOne, store: 'embedded' as const, runsPerSecond, cpuMsPerRun: 4, replicaCpuSeconds: 1.6 });
  const withEmbedded = (runsPerSecond: number): Report => {
    const r = fakeReport();
    // listed first, where a look-up that did not leave it out would find it before the PostgreSQL figures
    r.replicas!.unshift(embedded(runsPerSecond));
    return r;
  };

  const without = target(fakeReport());
  assert.equal(without.met, null, 'no embedded figure: not measured');
  assert.equal(without.value, 'PostgreSQL 80 runs/s, embedded store not measured');
  assert.equal(without.goal, '≥ 0.5×');
  assert.equal(deriveRatios(fakeReport()).ratios[ratioName], null);

  const missed = target(withEmbedded(200));
  assert.equal(missed.met, false, '80 runs/s against 200 is 0.4×');
  assert.equal(missed.value, 'PostgreSQL 80 runs/s, embedded store 200 runs/s: 0.4×');
  assert.equal(deriveRatios(withEmbedded(200)).ratios[ratioName], 0.4);
  // what a run cost on each side, read from the figures: statements, and CPU a run against the core time a run had
  assert.match(missed.why!, /a run cost 34\.5 statements/);
  assert.match(missed.why!, /10 ms of CPU a run against the embedded process's 4 ms \(2\.5×\)/);
  assert.match(missed.why!, /of the 25 ms of core time a run had at 80 runs\/s \(10 ms at the embedded store's 200\)/);
  assert.match(missed.why!, /same 2 cores/);
  assert.match(missed.why!, /1-min load average 1\.5 before the PostgreSQL figure/);
  assert.equal(target(withEmbedded(125)).met, true, '80 runs/s against 125 is 0.64×');
  assert.equal(target(withEmbedded(150)).met, true, '80 runs/s against 150 is 0.53×: over the 0.5× of issue 67');
  assert.equal(target(withEmbedded(170)).met, false, '80 runs/s against 170 is 0.47×');
  assert.match(missed.why!, /profiles\/postgres-replica\.svg/);

  const noPostgres = withEmbedded(200);
  noPostgres.replicas = noPostgres.replicas!.filter((r) => !(r.replicas === 1 && r.store === undefined));
  assert.equal(target(noPostgres).met, null, 'no PostgreSQL replica: not measured');
  assert.equal(target(noPostgres).value, 'PostgreSQL not measured, embedded store 200 runs/s');

  // every other ratio, target and comparison reads as it did without the embedded figure, baseline included
  const plain = fakeReport();
  const mixed = withEmbedded(200);
  for (const r of [plain, mixed]) r.replicas!.push({ ...pgOne, server: 'baseline', statementsPerRun: 45.5, cpuMsPerRun: 9.9 });
  const [before, after] = [deriveRatios(plain), deriveRatios(mixed)];
  assert.deepEqual({ ...after.ratios, [ratioName]: null }, before.ratios);
  assert.deepEqual(
    after.targets.filter((t) => t.name !== name),
    before.targets.filter((t) => t.name !== name),
  );
  assert.deepEqual(after.comparisons, before.comparisons);
  assert.ok(before.comparisons.length > 0);

  // the replicas table marks the row as the embedded store's, statements a dash
  const md = renderOf(mixed);
  assert.match(
    md,
    /\| current \| embedded store, same workload \| 1 \| plain-function echo \| 0 \| 20 \| 400 \| 5\.00 \| 200\.0 \| 0 \| 0 \| 1\.60 \| 4\.00 \| — \|/,
  );
  assert.match(md, /\| current \| PostgreSQL \| 1 \| plain-function echo \|/);
  assert.match(md, /The rows on the embedded store are the current tree's one process with no database/);
});

test('the writer produces parseable JSON, a markdown report and a well-formed SVG chart', () => {
  const dir = tempDir('bench-report-');
  try {
    const report = fakeReport();
    const files = writeReport(report, dir);
    assert.deepEqual(JSON.parse(fs.readFileSync(files.json, 'utf8')), report);
    const md = fs.readFileSync(files.md, 'utf8');
    assert.match(md, /^# Benchmarks/);
    assert.match(md, /!\[Throughput by scenario\]\(benchmarks\.svg\)/);
    for (const t of report.targets) assert.ok(md.includes(t.name), t.name);
    assert.match(md, /\*\*something\*\*: a reason/);
    // the replicas' runs/s are shown with the load average they were measured under
    assert.match(md, /## Replicas on one PostgreSQL database/);
    // the replica's CPU and PostgreSQL statements per run are shown when the run counted them
    assert.match(
      md,
      /\| current \| PostgreSQL \| 1 \| plain-function echo \| 0 \| 20 \| 400 \| 5\.00 \| 80\.0 \| 0 \| 0 \| 4\.00 \| 10\.00 \| 34\.5 \| 1\.5, 1, 1 → 2, 1, 1 \|/,
    );
    // (a run without the replicas' CPU or a statement count shows a dash in those columns)
    assert.match(
      md,
      /\| current \| PostgreSQL \| 2 \| plain-function echo \| 0 \| 20 \| 400 \| 4\.00 \| 100\.0 \| 0 \| 0 \| 5\.00 \| — \| — \| 2\.25, 1, 1 → 3, 1, 1 \|/,
    );
    assert.match(md, /\| `GET \/v2\/deployments\?limit=20` \| PostgreSQL \| 100,000 \| 11\.0 \|/);
    const svg = fs.readFileSync(files.svg, 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(svg.trim(), /<\/svg>$/);
    // one bar per HTTP, write and run figure, plus A2A (and the white background)
    const bars = report.http.length + report.writes.length + report.runs.length + report.replicas!.length + 1;
    assert.equal((svg.match(/<rect /g) ?? []).length, bars + 1);
    assert.ok(!svg.includes('<for a test>'), 'text is escaped');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a merged report takes the PostgreSQL and replicas figures from the new run and keeps the rest, saying so', () => {
  const earlier = fakeReport();
  earlier.skipped.push({ what: 'writes at 100,000 deployments (PostgreSQL)', reason: 'seeding too slow' });
  const fresh = fakeReport();
  fresh.generatedAt = '2026-02-02T00:00:00.000Z';
  fresh.writes = [{ op: 'POST /v2/deployments', existing: 100, store: 'postgresql', ...load(400, 2) }];
  fresh.replicas = [fresh.replicas![0]];
  fresh.skipped = [];
  fresh.http = [];
  const merged = mergeReports(earlier, fresh, ['postgres', 'replicas']);
  assert.deepEqual(
    merged.writes.filter((w) => w.store === 'postgresql'),
    fresh.writes,
  );
  assert.equal(merged.writes.filter((w) => w.store !== 'postgresql').length, 5, 'the embedded figures stay');
  assert.deepEqual(merged.http, earlier.http, 'phases not run stay as they were');
  assert.deepEqual(merged.replicas, fresh.replicas);
  assert.deepEqual(merged.skipped, [{ what: 'something', reason: 'a reason' }], "the earlier run's PostgreSQL note is gone with its figures");
  assert.equal(merged.generatedAt, earlier.generatedAt, 'the report stays the full run it was');
  const md = renderOf(merged);
  assert.match(
    md,
    /\*\*Figures from 2 runs in this report\.\*\* Every figure not named here, and the machine's load below, are from the full run of 2026-01-01T00:00:00\.000Z/,
  );
  assert.match(md, /- postgres, replicas: on 2026-02-02T00:00:00\.000Z, in a run of 300 s/);
  assert.match(md, /compares different hours/, 'PostgreSQL from one run beside the embedded store from another is said');
  assert.throws(() => mergeReports(earlier, fresh, ['postgres', 'http']), /phases only, not http/);
  // with the writes phase too, both stores' figures are the new run's
  const both = mergeReports(earlier, fresh, ['writes', 'postgres']);
  assert.deepEqual(both.writes, fresh.writes);
  assert.deepEqual(both.replicas, earlier.replicas);
  assert.doesNotMatch(renderOf(both), /compares different hours/);
  // a later merge of the replicas alone keeps the record of the earlier one for the rest
  const later = { ...fakeReport(), generatedAt: '2026-03-03T00:00:00.000Z' };
  const twice = mergeReports(both, later, ['replicas']);
  assert.deepEqual(
    twice.merged?.map((m) => [m.phases, m.measuredAt]),
    [
      [['writes', 'postgres'], '2026-02-02T00:00:00.000Z'],
      [['replicas'], '2026-03-03T00:00:00.000Z'],
    ],
  );
  assert.deepEqual(twice.replicas, later.replicas);
  assert.deepEqual(twice.writes, fresh.writes);
  assert.match(renderOf(twice), /Figures from 3 runs in this report/);
  // the runs from a fresh start (issue 86's judged runs) are taken from a later run when named, and kept when not
  const rounds = { ...fakeReport(), generatedAt: '2026-04-04T00:00:00.000Z', fresh: { figures: [], ratios: [] } };
  assert.deepEqual(mergeReports(twice, rounds, ['fresh']).fresh, rounds.fresh);
  assert.deepEqual(mergeReports(twice, rounds, ['replicas']).fresh, twice.fresh);
  // the routes against their baseline (the request path) likewise, both log levels, with the skip of an earlier try
  const earlierRoutes = { ref: 'd5486dc', commit: 'e'.repeat(40), figures: [] };
  const withSkip = {
    ...twice,
    routeCpu: earlierRoutes,
    routeCpuWarn: earlierRoutes,
    skipped: [...twice.skipped, { what: 'routes against d5486dc', reason: 'it failed' }],
  };
  const routes = {
    ...fakeReport(),
    generatedAt: '2026-05-05T00:00:00.000Z',
    routeCpu: { ref: 'd5486dc', commit: 'f'.repeat(40), figures: [] },
    routeCpuWarn: undefined,
  };
  const mergedRoutes = mergeReports(withSkip, routes, ['routes']);
  assert.deepEqual([mergedRoutes.routeCpu, mergedRoutes.routeCpuWarn], [routes.routeCpu, undefined]);
  assert.ok(!mergedRoutes.skipped.some((s) => s.what.startsWith('routes')), "the earlier run's skip of the routes goes with its figures");
  const kept = mergeReports(withSkip, routes, ['fresh']);
  assert.deepEqual([kept.routeCpu, kept.routeCpuWarn], [earlierRoutes, earlierRoutes], 'kept when the routes are not named');
});

function renderOf(measured: ReturnType<typeof mergeReports>): string {
  const dir = tempDir('bench-report-');
  try {
    return fs.readFileSync(writeReport({ ...measured, ...deriveRatios(measured) }, dir).md, 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const underLoad = (server: 'agentplane' | 'baseline', loadedOkP99Ms: number, loadedCreateP50Ms: number): UnderLoadFigure => ({
  setting: DEFAULT_WORKERS_SETTING,
  server,
  busyMs: 200,
  backlogRuns: 120,
  probeSeconds: 8,
  idleOkP50Ms: 1,
  idleOkP99Ms: 2,
  loadedOkP50Ms: 1,
  loadedOkP99Ms,
  idleCreateP50Ms: 4,
  loadedCreateP50Ms,
  loadedCreateMaxMs: 100,
  okProbes: 100,
  createProbes: 30,
});

/** The fake report with the baseline measured beside it: some figures better, some within 5%, some worse. */
function withBaseline(): Report {
  const { ratios: _r, targets: _t, comparisons: _c, ...base } = fakeReport();
  const measured: Measured = {
    ...base,
    baseline: { ref: 'v0.1.0', commit: 'bd941bba51d8455444d30513c370029d134ab547' },
    http: [
      ...base.http,
      { route: ROUTE_BY_ID, server: 'baseline', ...load(10000, 0.4), cpuUsPerRequest: 30 }, // current 8000 req/s, 40 µs: both worse
      { route: ROUTE_LIST, server: 'baseline', ...load(4100, 1), cpuUsPerRequest: 100 }, // current 4000: 2.4% slower, within 5%
    ],
    runs: [...base.runs, { server: 'baseline', graph: SHARED_GRAPH, scenario: 'one thread', runs: 100, seconds: 2, runsPerSecond: 50, failed: 0 }],
    underLoad: [underLoad('agentplane', 10, 8), underLoad('baseline', 20, 7)],
    memory: { ...base.memory, startMs: 650, baselineStartMs: 1200 },
    fresh: {
      figures: [
        { server: 'agentplane', scenario: '100 threads', start: 'warm-up', rounds: [200, 220, 210], runsPerSecond: 210, failed: 0 },
        { server: 'peer', scenario: '100 threads', start: 'warm-up', rounds: [100, 100, 105], runsPerSecond: 100, failed: 0 },
      ],
      ratios: [{ scenario: '100 threads', start: 'warm-up', versus: 'peer', ratio: 2.1, min: 2, max: 2.2, rounds: 3 }],
    },
  };
  return { ...measured, ...deriveRatios(measured) };
}

test('every figure measured on both trees is compared to the baseline, and only those more than 5% worse are regressions', () => {
  const { comparisons } = withBaseline();
  const of = (what: string) => comparisons.find((c) => c.what === what)!;
  assert.deepEqual(
    comparisons.map((c) => [c.what, c.ratio, c.regression]),
    [
      [`${ROUTE_BY_ID} throughput`, 0.8, true],
      [`${ROUTE_BY_ID} server CPU per request`, 1.333, true], // lower is better: more CPU is worse
      [`${ROUTE_LIST} throughput`, 0.976, false],
      [`${ROUTE_LIST} server CPU per request`, 1, false],
      ['runs, one thread, LangGraph echo', 2, false],
      ['start to first 200 (median)', 0.542, false], // faster start than the baseline
      ['GET /ok p99 behind CPU-bound runs', 0.5, false],
      ['POST /threads/{id}/runs p50 behind CPU-bound runs', 1.143, true],
    ],
  );
  assert.equal(of('start to first 200 (median)').higherIsBetter, false);
  // figures with no baseline row (the plain echo's runs, the ceiling, Prism) are not compared
  assert.ok(!comparisons.some((c) => c.what.includes('plain-function')));
  // the baseline's under-load figure is not read as the shipped server's target
  assert.equal(withBaseline().targets.find((t) => t.name.startsWith('GET /ok p99 behind'))!.value, '5×');
  assert.deepEqual(fakeReport().comparisons, [], 'no baseline, nothing compared');
});

test('the report opens with every target in one line each, then the regressions against the baseline, then what explains each missed target', () => {
  const report = withBaseline();
  const dir = tempDir('bench-report-');
  try {
    const md = fs.readFileSync(writeReport(report, dir).md, 'utf8');
    const targets = md.indexOf('## Targets\n');
    const top = md.indexOf('## Against the baseline `v0.1.0` (bd941bb)');
    const missed = md.indexOf('## Why targets were missed');
    assert.ok(targets > 0 && targets < top && top < missed, 'the targets, then the baseline, then the explanations');
    const table = md.slice(targets, top).trim().split('\n').slice(2);
    assert.equal(table.length, 2 + report.targets.length, 'one line a target');
    const growth = report.targets.findIndex((t) => t.name === 'Write p50 growth, 100 → 100k deployments');
    assert.match(
      table[2 + growth],
      /^\| Write p50 growth, 100 → 100k deployments \| ≤ 2× \| POST 1\.5×, PATCH 3× \| \*\*missed\*\* \| \[why\]\(#why-\d+\) \|$/,
    );
    const anchor = /\[why\]\(#(why-\d+)\)/.exec(table[2 + growth])![1];
    const missedPart = md.slice(missed, md.indexOf('![Throughput by scenario]'));
    assert.match(
      missedPart,
      new RegExp(`<a id="${anchor}"></a>\\n\\n### Write p50 growth, 100 → 100k deployments\\n\\nPOST 1\\.5×, PATCH 3× \\(goal ≤ 2×\\)\\.`),
    );
    assert.match(
      missedPart,
      /### LangGraph runs\/s vs upstream JS dev server, every server started fresh each round[^\n]*\n\n[^\n]*On one thread a thread's state grows[^\n]*messageMemo\.ts[^\n]*\(profiles\/runs-in-process\.svg\)/,
    );
    assert.doesNotMatch(missedPart, /on one long-lived server each/, 'the long-lived figures are not judged');
    assert.match(md, /\| agentplane ÷ upstream JS dev server \| warm-up \| 100 threads \| default client \| 2\.10× \| 2\.00–2\.20 \|/);
    assert.match(md, /## Runs on one long-lived server each/);
    assert.doesNotMatch(missedPart, /### Start to first 200/, 'a met target is not explained');
    assert.ok(
      table.some((row) => /^\| Start to first 200[^\n]*\| met \| {2}\|$/.test(row)),
      'a met target has its line, with no link',
    );
    assert.match(md, /\*\*3 regressions of more than 5% against `v0\.1\.0` \(bd941bb\):\*\*/);
    assert.match(md, /- \*\*GET \/v2\/deployments\/\{id\} throughput\*\*: 8,000 req\/s vs 10,000 req\/s \(0\.8× the baseline, higher is better\)/);
    assert.doesNotMatch(md, /- \*\*GET \/v2\/deployments\?limit=20 throughput/, 'within 5% is no regression');
    assert.match(md, /\| start to first 200 \(median\) \(ms, lower is better\) \| 650 ms \| 1,200 ms \| 0\.542 \| −45\.8% \| {2}\|/);
    assert.match(md, /\| `GET \/v2\/deployments\/\{id\}` \| agentplane at `v0\.1\.0` \(baseline\) \| 10,000 \|/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const clean = { ...report, comparisons: report.comparisons.filter((c) => !c.regression) };
  assert.match(baselineSection(clean).join('\n'), /No figure is more than 5% worse than `v0\.1\.0` \(bd941bb\)\./);
  assert.match(baselineSection({ baseline: null, comparisons: [] }).join('\n'), /No baseline in this run/);
});

test('the routes against d5486dc are read by throughput and by CPU per request, each a target, each compared, and the regressions sentence names both baselines', () => {
  const report = withBaseline();
  const route = (name: RouteCpuFigure['route'], rps: number, cpu: number): RouteCpuFigure => ({
    route: name,
    currentUs: 50,
    baselineUs: 50 * cpu,
    ratio: cpu,
    ratioMin: cpu - 0.25,
    ratioMax: cpu + 0.25,
    rounds: 20,
    currentRps: 1000 * rps,
    baselineRps: 1000,
    rpsRatio: rps,
    rpsRatioMin: rps - 0.1,
    rpsRatioMax: rps + 0.1,
  });
  report.routeCpu = { ref: 'd5486dc', commit: 'd5486dc3029c', figures: [route('GET /ok', 1.2, 1.1), route('POST /threads', 0.9, 1.05)] };
  const derived = { ...report, ...deriveRatios(report) };
  const { targets, comparisons } = derived;
  const throughput = targets.find((t) => t.name.startsWith('Request path throughput vs `d5486dc`'))!;
  assert.equal(throughput.met, false, 'POST /threads at 0.9× by throughput misses, though its CPU per request is 1.05×');
  assert.match(throughput.value, /`POST \/threads` 0\.9× \(900 vs 1000 req\/s; rounds 0\.8–1\)/);
  assert.match(throughput.why!, /profiles\/request-path\.svg/);
  assert.equal(targets.find((t) => t.name.startsWith('Server CPU per request on the routes shared with `d5486dc`'))!.met, true, 'the other method, beside it');
  const against = 'against `d5486dc` (both up at once, alternating bursts)';
  const posted = comparisons.find((c) => c.what === `POST /threads throughput, ${against}`)!;
  assert.deepEqual([posted.ratio, posted.regression, posted.higherIsBetter], [0.9, true, true]);
  assert.equal(comparisons.find((c) => c.what === `GET /ok throughput, ${against}`)!.regression, false);
  // judged by the median of the rounds' ratios, as the target is: two medians 13% apart whose
  // rounds, paired, put the trees 2% apart are no regression
  const paired = deriveRatios({
    ...report,
    routeCpu: { ...report.routeCpu, figures: [{ ...route('GET /ok', 0.98, 0.97), currentRps: 870, baselineRps: 1000, currentUs: 60, baselineUs: 50 }] },
  }).comparisons;
  const ok = paired.find((c) => c.what === `GET /ok throughput, ${against}`)!;
  assert.deepEqual([ok.current, ok.baseline, ok.ratio, ok.regression], [870, 1000, 0.98, false]);
  const okCpu = paired.find((c) => c.what === `GET /ok server CPU per request, ${against}`)!;
  assert.deepEqual([okCpu.ratio, okCpu.regression], [1.031, false]);
  const section = baselineSection(derived).join('\n');
  assert.match(section, /## Against the baselines `v0\.1\.0` \(bd941bb\) and `d5486dc` \(d5486dc, the routes\)/);
  assert.match(section, /regressions of more than 5% against `v0\.1\.0` \(bd941bb\) or `d5486dc` \(d5486dc, the routes\):/);
  assert.match(section, /- \*\*POST \/threads throughput, against `d5486dc`/);
  const clean = { ...derived, comparisons: comparisons.filter((c) => !c.regression) };
  assert.match(baselineSection(clean).join('\n'), /No figure is more than 5% worse than `v0\.1\.0` \(bd941bb\) or `d5486dc` \(d5486dc, the routes\)\./);
  // the routes alone (no --baseline) still open the comparison
  assert.match(baselineSection({ baseline: null, comparisons: [], routeCpu: report.routeCpu }).join('\n'), /No figure is more than 5% worse than `d5486dc`/);
  const routes = routeCpuSection(report).join('\n');
  assert.match(routes, /\| `POST \/threads` \| 900 \| 1,000 \| 0\.90× \| 0\.80–1\.00 \| 50\.0 \| 52\.5 \| 1\.05× \| 0\.80–1\.30 \|/);
  assert.doesNotMatch(routes, /load generator/, 'figures without the client CPU say nothing of it');
  assert.doesNotMatch(routes, /LOG_LEVEL=warn/, 'no figures at warn, no table of them');
  // the same routes at LOG_LEVEL=warn, beside the default's and labelled (issue 86)
  const quiet = routeCpuSection({ ...report, routeCpuWarn: report.routeCpu }).join('\n');
  assert.match(quiet, /## Routes against `d5486dc`\n[\s\S]*## Routes against `d5486dc` at LOG_LEVEL=warn \(no access line\), both trees\n/);
  // the client's CPU (measured since the bursts were sized by rate) is read beside the table
  const measuredClient = {
    ...report.routeCpu,
    figures: report.routeCpu.figures.map((f) => ({ ...f, currentClientUs: 40, baselineClientUs: 38.5, clientShare: 0.4, clientShareMax: 0.55 })),
  };
  assert.match(routeCpuSection({ routeCpu: measuredClient }).join('\n'), /load generator .*`POST \/threads` 40\.0 \/ 38\.5 µs, 0\.40 \(0\.55\)/);
  // an older report's figure has no throughput: the row says so, the target is not measured
  const older = withBaseline();
  older.routeCpu = {
    ref: 'd5486dc',
    commit: 'd5486dc3029c',
    figures: [{ route: 'GET /ok', currentUs: 50, baselineUs: 55, ratio: 1.1, ratioMin: 1, ratioMax: 1.2, rounds: 20 }],
  };
  assert.equal(deriveRatios(older).targets.find((t) => t.name.startsWith('Request path throughput'))!.met, null);
  assert.match(routeCpuSection(older).join('\n'), /\| `GET \/ok` \| — \| — \| — \| — \| 50\.0 \| 55\.0 \| 1\.10× \| 1\.00–1\.20 \|/);
});

test('issue 67 reads 100-thread runs against LangGraph alone (saying where it is measured) and the enqueue behind CPU-bound runs in ms', () => {
  const named = (m: Measured, prefix: string) => deriveRatios(m).targets.find((t) => t.name.startsWith(prefix))!;
  const alone = 'LangGraph runs/s on 100 threads ÷ LangGraph alone';
  assert.equal(named(fakeReport(), alone).met, null);
  const report = fakeReport();
  report.runs.push(
    { server: 'agentplane', graph: SHARED_GRAPH, scenario: '100 threads', runs: 1000, seconds: 5, runsPerSecond: 200, failed: 0 },
    { server: 'graph-alone', graph: SHARED_GRAPH, scenario: '100 threads', runs: 1000, seconds: 1.25, runsPerSecond: 800, failed: 0 },
  );
  const missed = named(report, alone);
  assert.equal(missed.met, false, '200 runs/s against 800 is 0.25×');
  assert.equal(missed.value, '0.25× (agentplane 200 runs/s, LangGraph alone 800 runs/s)');
  assert.match(missed.name, /one long-lived server, LangGraph alone right after/);
  assert.match(missed.why!, /profiles\/runs-100-threads-worker\.svg/);
  report.runs.at(-1)!.runsPerSecond = 390;
  assert.equal(named(report, alone).met, true, '200 against 390 is 0.51×');
  // measured in the fresh rounds, the ratio of those rounds is the one judged
  const inRounds = {
    ...report,
    fresh: {
      figures: [],
      ratios: [
        { scenario: '100 threads' as const, start: 'warm-up' as const, versus: 'graph-alone' as const, ratio: 0.3, min: 0.25, max: 0.35, rounds: 5 },
        { scenario: 'one thread' as const, start: 'warm-up' as const, versus: 'graph-alone' as const, ratio: 0.9, min: 0.8, max: 1, rounds: 5 },
      ],
    },
  };
  const fresh = named(inRounds, 'LangGraph runs/s on 100 threads ÷ LangGraph alone');
  assert.equal(fresh.name, 'LangGraph runs/s on 100 threads ÷ LangGraph alone on the same graph, in the fresh rounds (issue 67)');
  assert.equal(fresh.value, '0.3× (rounds 0.25–0.35, n=5); one thread 0.9× (rounds 0.8–1, n=5)');
  assert.equal(fresh.met, false);
  assert.equal(named(inRounds, 'LangGraph runs/s vs upstream JS dev server, every server').met, null, 'LangGraph alone is not the upstream server');
  const enqueue = 'POST …/runs p50 behind a backlog of CPU-bound runs, default run workers (issue 67)';
  assert.equal(named(fakeReport(), enqueue).met, null);
  const loaded = withBaseline();
  assert.equal(named(loaded, enqueue).value, '8 ms');
  assert.equal(named(loaded, enqueue).met, true);
  loaded.underLoad = [underLoad('agentplane', 10, 66)];
  assert.equal(named(loaded, enqueue).met, false, '66 ms is over 25');
});

test("a sampled subscriber's delivery is read from a values or messages event's server timestamp; lifecycle events and older events are not counted", () => {
  const frame = (method: string, timestamp: number) =>
    `id: 7\nevent: ${method}\ndata: ${JSON.stringify({ type: 'event', event_id: '7', seq: 7, method, params: { namespace: [], timestamp, data: { timestamp: 1 } } })}`;
  assert.equal(deliveryOf(frame('values', 1_000_000), 1_000_012, 999_000), 12);
  assert.equal(deliveryOf(frame('messages', 1_000_000), 1_000_003, 999_000), 3);
  assert.equal(deliveryOf(frame('lifecycle', 1_000_000), 1_000_003, 999_000), null, "a run's running event may carry its creation time");
  assert.equal(deliveryOf(frame('values', 998_000), 1_000_003, 999_000), null, 'made before the subscribers were open: a replay');
  assert.equal(deliveryOf('{"type":"success","id":1}', 1_000_003, 0), null);
});

test('every target that can be judged says where its profile is (issue 67: every missed target has a profile)', () => {
  const report = withBaseline();
  report.fanout = {
    subscribers: { sse: 500, websocket: 500 },
    threads: 20,
    runs: 300,
    eventsReceived: 90_000,
    failedSubscribers: 0,
    idle: { okP99Ms: 2, firstEventMs: 10 },
    runsAlone: { okP99Ms: 3, firstEventMs: 12 },
    loaded: { okP99Ms: 50, firstEventMs: 150 },
    okP99Ratio: 25,
    firstEventRatio: 15,
    delivery: { subscribers: 100, events: 1000, p50Ms: 40, p99Ms: 400 },
    replay: { shortHistoryEvents: 30, longHistoryEvents: 1000, returned: 9, shortMs: 4, longMs: 40, ratio: 10 },
  };
  report.routeCpu = {
    ref: 'd5486dc',
    commit: 'd5486dc3029c',
    figures: [
      {
        route: 'GET /ok',
        currentUs: 60,
        baselineUs: 50,
        ratio: 0.83,
        ratioMin: 0.7,
        ratioMax: 0.9,
        rounds: 20,
        currentRps: 900,
        baselineRps: 1000,
        rpsRatio: 0.9,
        rpsRatioMin: 0.8,
        rpsRatioMax: 1,
      },
    ],
  };
  const judged = deriveRatios(report).targets.filter((t) => t.met !== null);
  assert.ok(judged.filter((t) => t.met === false).length >= 8, 'the report misses many targets');
  for (const t of judged) assert.match(t.why ?? '', /\(profiles\/[\w-]+\.svg\)/, `${t.name}: links a profile`);
});

test('the baseline is named on the command line or in BENCH_BASELINE; its node_modules are ours only when every pin matches', () => {
  assert.equal(baselineRefFrom(['--baseline', 'v0.1.0'], {}), 'v0.1.0');
  assert.equal(baselineRefFrom(['--baseline=d5486dc'], { BENCH_BASELINE: 'x' }), 'd5486dc');
  assert.equal(baselineRefFrom([], { BENCH_BASELINE: 'main' }), 'main');
  assert.equal(baselineRefFrom([], {}), null);
  const pkg = JSON.stringify({ dependencies: { pg: '8.23.1' }, devDependencies: { tsx: '4.0.0' } });
  const installed: Record<string, string> = { pg: '8.23.1', tsx: '4.0.0', madge: '8.0.0' };
  assert.equal(
    nodeModulesFit('lock A', 'lock A', pkg, () => null),
    true,
    'same lockfile',
  );
  assert.equal(
    nodeModulesFit('lock A', 'lock B', pkg, (n) => installed[n] ?? null),
    true,
    'packages added since are not in the way',
  );
  assert.equal(
    nodeModulesFit('lock A', 'lock B', pkg, (n) => ({ ...installed, pg: '8.24.0' })[n] ?? null),
    false,
    'another version of a pinned package',
  );
  assert.equal(
    nodeModulesFit('lock A', 'lock B', pkg, (n) => (n === 'tsx' ? null : installed[n])),
    false,
    'a package missing here',
  );
});

test('a replica figure of several rounds takes the median of each figure and counts every round’s failures', () => {
  const round = (runsPerSecond: number, cpuMsPerRun: number, statementsPerRun: number, failed = 0) => ({
    replicas: 1,
    graph: 'echo',
    workers: '0',
    threads: 20,
    runs: 400,
    seconds: 400 / runsPerSecond,
    runsPerSecond,
    failed,
    threadsWrong: 0,
    loadBefore: [1, 1, 1],
    loadAfter: [2, 2, 2],
    replicaCpuSeconds: (cpuMsPerRun * 400) / 1000,
    cpuMsPerRun,
    statementsPerRun,
  });
  const figure = medianReplicaFigure([round(90, 7.5, 34.6), round(100, 6.8, 34.4, 1), round(80, 7.1, 34.5)]);
  assert.equal(figure.runsPerSecond, 90);
  assert.equal(figure.cpuMsPerRun, 7.1, 'the median CPU per run, whichever round it came from');
  assert.equal(figure.statementsPerRun, 34.5);
  assert.equal(figure.seconds, 4.44);
  assert.equal(figure.replicaCpuSeconds, 2.84);
  assert.equal(figure.failed, 1, 'a failure in any round shows');
  assert.deepEqual(figure.loadAfter, [2, 2, 2]);
  assert.deepEqual(
    figure.rounds?.map((r) => r.runsPerSecond),
    [90, 100, 80],
  );
});

test("a tree's figure behind CPU-bound runs is the median of its rounds, each field on its own, and that is what the baseline is compared with", () => {
  const agentplane = medianUnderLoad([underLoad('agentplane', 12, 2.4), underLoad('agentplane', 9, 2.1), underLoad('agentplane', 30, 2.2)]);
  assert.equal(agentplane.loadedCreateP50Ms, 2.2);
  assert.equal(agentplane.loadedOkP99Ms, 12, 'the median p99, whichever round it came from');
  assert.equal(agentplane.server, 'agentplane');
  assert.deepEqual(
    agentplane.rounds?.map((r) => r.loadedCreateP50Ms),
    [2.4, 2.1, 2.2],
  );
  assert.equal(medianUnderLoad([underLoad('baseline', 10, 2), underLoad('baseline', 10, 3)]).loadedCreateP50Ms, 2.5, 'two rounds: their mean');
  // one slow round of the current tree's three no longer reads as a regression
  const report = fakeReport();
  const measured = {
    ...report,
    underLoad: [agentplane, medianUnderLoad([underLoad('baseline', 11, 2.15), underLoad('baseline', 10, 2.2), underLoad('baseline', 12, 2.3)])],
  };
  const create = deriveRatios(measured).comparisons.find((c) => c.what === 'POST /threads/{id}/runs p50 behind CPU-bound runs');
  assert.equal(create?.current, 2.2);
  assert.equal(create?.baseline, 2.2);
  assert.equal(create?.regression, false);
});

// routeInstructions.ts reads callgrind's per-thread dumps: every thread's instructions, the main
// thread's apart (the one a request's answer waits for), and its cache misses when simulated.
const dump = (events: string, totals: string) => `version: 1\ncreator: callgrind-3.19.0\nevents: ${events}\n\nfn=x\n0 1\n\ntotals: ${totals}\n`;

test("the main thread's instructions are its -01 file's; all threads' are every file's", () => {
  const counted = dumpTotals([
    { name: '/w/current.callgrind.3-01', text: dump('Ir', '1000') },
    { name: '/w/current.callgrind.3-02', text: dump('Ir', '30') },
    { name: '/w/current.callgrind.3-11', text: dump('Ir', '5') },
  ]);
  assert.deepEqual(counted, { all: 1035, main: 1000, mainL1Misses: 0, mainLLMisses: 0 });
});

test("with the caches simulated, the main thread's misses are summed by level, each event found by its name", () => {
  const counted = dumpTotals([
    { name: 'c.1-01', text: dump('Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw', '900 10 1 400 20 2 300 30 3') },
    { name: 'c.1-02', text: dump('Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw', '100 7 7 7 7 7 7 7 7') },
  ]);
  assert.deepEqual(counted, { all: 1000, main: 900, mainL1Misses: 60, mainLLMisses: 6 });
});

test('a file with no totals (a thread that ended before the dump) counts nothing', () => {
  assert.deepEqual(dumpTotals([{ name: 'c.1-04', text: 'version: 1\nevents: Ir\n' }]), { all: 0, main: 0, mainL1Misses: 0, mainLLMisses: 0 });
});
