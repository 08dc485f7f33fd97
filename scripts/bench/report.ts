// Writes docs/benchmarks.{json,md,svg} from one run's figures.
import fs from 'node:fs';
import path from 'node:path';
import { SHARED_GRAPH, REGRESSION_TOLERANCE, type Comparison, type Measured, type Report, type Server, type Target, type WriteFigure } from './figures.ts';
import { renderChart, type Bar } from './chart.ts';
import { protocolSection } from './protocolFigures.ts';
import { fanoutSection } from './fanout.ts';
import { FRESH_ONE_THREAD_RUNS, FRESH_RUNS_PER_THREAD, FRESH_THREADS, type FreshFigure } from './freshPeer.ts';
import { WRITES_QUOTA_ENV } from './writes.ts';

export function writeReport(report: Report, dir: string): { json: string; md: string; svg: string } {
  fs.mkdirSync(dir, { recursive: true });
  const files = { json: path.join(dir, 'benchmarks.json'), md: path.join(dir, 'benchmarks.md'), svg: path.join(dir, 'benchmarks.svg') };
  fs.writeFileSync(files.json, JSON.stringify(report, null, 2) + '\n');
  fs.writeFileSync(files.svg, renderChart(chartBars(report), 'Throughput by scenario (higher is better; log scale)'));
  fs.writeFileSync(files.md, renderMarkdown(report));
  return files;
}

/** Which phase (run.ts BENCH_ONLY) measured a `skipped` entry, from its wording. */
function phaseOfSkipped(what: string): string {
  if (/fresh start/i.test(what)) return 'fresh';
  if (/^routes against/i.test(what)) return 'routes';
  if (/^fan-?out/i.test(what)) return 'fanout';
  if (/^burst/i.test(what)) return 'burst';
  if (/ceiling/i.test(what)) return 'pgceiling';
  if (/replica/i.test(what)) return 'replicas';
  if (/protocol/i.test(what)) return 'protocol';
  if (/PostgreSQL/.test(what)) return 'postgres';
  if (/upstream|peer/i.test(what)) return 'peer';
  if (/^writes|deployments/i.test(what)) return 'writes';
  if (/A2A|^runs/i.test(what)) return 'runs';
  if (/under-load/i.test(what)) return 'load';
  if (/tenant/i.test(what)) return 'tenants';
  if (/threads|run-memory/i.test(what)) return 'memory';
  return 'http';
}

/** Whether two method bullets describe the same thing: the same label before their first colon (else the same opening words). */
const sameBullet = (a: string, b: string) => bulletLabel(a) === bulletLabel(b);
function bulletLabel(line: string): string {
  const colon = line.indexOf(': ');
  return colon > 0 && colon <= 40 ? line.slice(0, colon) : line.slice(0, 40);
}

/** The phases BENCH_MERGE can take from a new run: the write/read figures of either store, the replicas, the tenants, protocol v2, the fan-out, the runs from a fresh start, the routes against their baseline. */
export const MERGEABLE = ['writes', 'postgres', 'replicas', 'pgceiling', 'tenants', 'protocol', 'fanout', 'burst', 'fresh', 'routes'];

/**
 * An earlier report with the figures of `phases` replaced by this run's (BENCH_ONLY with
 * BENCH_MERGE): for adding a phase's fresh numbers to the committed report when the machine
 * cannot give the whole bench a quiet quarter of an hour. The report says which figures are
 * from which run.
 */
export function mergeReports(earlier: Measured, fresh: Measured, phases: string[]): Measured {
  const unsupported = phases.filter((p) => !MERGEABLE.includes(p));
  if (unsupported.length) throw new Error(`BENCH_MERGE merges the ${MERGEABLE.join(', ')} phases only, not ${unsupported.join(', ')}`);
  const storeOf = (w: WriteFigure) => (w.store === 'postgresql' ? 'postgres' : 'writes');
  // the embedded store's seeding is the writes phase's; the threads' is the memory phase's
  const seedingOf = (what: string) => (what.includes('(PostgreSQL') ? 'postgres' : what.startsWith('deployments') ? 'writes' : 'memory');
  const { ratios: _r, protocolRatios: _p, targets: _t, comparisons: _c, ...base } = earlier as Report;
  // an earlier merge keeps its entry for the phases this one leaves as they were
  const before = (earlier.merged ?? []).map((m) => ({ ...m, phases: m.phases.filter((p) => !phases.includes(p)) })).filter((m) => m.phases.length > 0);
  const take = <T>(list: T[], freshList: T[], phaseOf: (x: T) => string) => [
    ...list.filter((x) => !phases.includes(phaseOf(x))),
    ...freshList.filter((x) => phases.includes(phaseOf(x))),
  ];
  return {
    ...base,
    // a phase's bullet is replaced by the new run's (the same opening words), the others kept
    method: [
      ...earlier.method.map((line) => fresh.method.find((f) => sameBullet(f, line)) ?? line),
      ...fresh.method.filter((f) => !earlier.method.some((line) => sameBullet(f, line))),
    ],
    writes: take(earlier.writes, fresh.writes, storeOf),
    seeding: take(earlier.seeding, fresh.seeding, (s) => seedingOf(s.what)),
    replicas: phases.includes('replicas') ? fresh.replicas : earlier.replicas,
    pgCeiling: phases.includes('pgceiling') ? fresh.pgCeiling : earlier.pgCeiling,
    tenants: phases.includes('tenants') ? fresh.tenants : earlier.tenants,
    protocol: phases.includes('protocol') ? fresh.protocol : earlier.protocol,
    fanout: phases.includes('fanout') ? fresh.fanout : earlier.fanout,
    burst: phases.includes('burst') ? fresh.burst : earlier.burst,
    fresh: phases.includes('fresh') ? fresh.fresh : earlier.fresh,
    // the routes against their baseline, at both log levels (issue 86's request path: hours apart, their own turns)
    routeCpu: phases.includes('routes') ? fresh.routeCpu : earlier.routeCpu,
    routeCpuWarn: phases.includes('routes') ? fresh.routeCpuWarn : earlier.routeCpuWarn,
    memory: phases.includes('writes') ? { ...earlier.memory, startWith100kMs: fresh.memory.startWith100kMs } : earlier.memory,
    skipped: [...earlier.skipped.filter((s) => !phases.includes(phaseOfSkipped(s.what))), ...fresh.skipped],
    merged: [
      ...before,
      {
        phases,
        measuredAt: fresh.generatedAt,
        seconds: fresh.seconds,
        loadAverageAtStart: fresh.machine.loadAverageAtStart,
        loadAverageAtEnd: fresh.machine.loadAverageAtEnd,
      },
    ],
  };
}

const SERVER_NAMES: Record<Server, string> = {
  agentplane: 'agentplane',
  inprocess: 'agentplane, AGENTPLANE_RUN_WORKERS=0',
  ceiling: 'bare node:http (ceiling)',
  prism: 'Prism mock',
  peer: 'upstream JS dev server',
  baseline: 'agentplane at the baseline',
  'graph-alone': 'LangGraph alone with its MemorySaver, no server (runs reference)',
};

const serverName = (r: Pick<Report, 'baseline'>, server: Server) =>
  server === 'baseline' && r.baseline ? `agentplane at \`${r.baseline.ref}\` (baseline)` : SERVER_NAMES[server];

export function chartBars(report: Report): Bar[] {
  const bars: Bar[] = [];
  for (const h of report.http) bars.push({ group: h.route, label: SERVER_NAMES[h.server], value: h.rps, unit: 'req/s', series: h.server });
  for (const w of report.writes)
    bars.push({
      group: w.store === 'postgresql' ? `${w.op} (PostgreSQL)` : w.op,
      label: `${w.existing.toLocaleString('en-US')} existing${w.server ? ` (${w.server})` : ''}`,
      value: w.rps,
      unit: 'req/s',
      series: w.server ?? 'agentplane',
    });
  for (const x of report.replicas ?? [])
    bars.push({
      // the embedded store's process beside the replicas is in a group of its own, not read as a PostgreSQL figure
      group: x.store === 'embedded' ? 'Enqueued runs, the replicas’ workload on the embedded store' : 'Enqueued runs on one PostgreSQL',
      label: `${x.replicas} ${x.store === 'embedded' ? 'process' : `replica${x.replicas > 1 ? 's' : ''}`}${x.server ? ` (${x.server})` : ''}${x.graph === SHARED_GRAPH ? ', LangGraph echo' : ''}`,
      value: x.runsPerSecond,
      unit: 'runs/s',
      series: x.server ?? 'agentplane',
    });
  for (const r of report.runs)
    bars.push({
      group: `Enqueued runs, ${r.scenario}`,
      label: `${SERVER_NAMES[r.server]}, ${graphName(r.graph)}`,
      value: r.runsPerSecond,
      unit: 'runs/s',
      series: r.server,
    });
  if (report.a2a)
    bars.push({ group: 'A2A message/send', label: SERVER_NAMES[report.a2a.server], value: report.a2a.rps, unit: 'req/s', series: report.a2a.server });
  return bars;
}

const graphName = (graph: string) => (graph === SHARED_GRAPH ? 'LangGraph echo' : 'plain-function echo');

const fmt = (n: number | null | undefined, digits = 0) =>
  n == null || !Number.isFinite(n) ? '—' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const fmtMs = (n: number | null | undefined) => (n == null || !Number.isFinite(n) ? '—' : n < 10 ? fmt(n, 2) : fmt(n, 1));
const yes = (met: boolean | null) => (met === null ? 'not measured' : met ? 'met' : '**missed**');

const pctChange = (c: Comparison) => `${c.ratio >= 1 ? '+' : '−'}${fmt(Math.abs(c.ratio - 1) * 100, 1)}%`;

/**
 * The report's opening against the baselines: the regressions first (worse by more than 5%,
 * whichever way "worse" points for the figure), then every figure beside its baseline. Two
 * baselines may be measured: the tree given with `--baseline` (v0.1.0) and the route
 * baseline (d5486dc, the routes phase); the sentence on regressions names each one measured.
 */
export function baselineSection(r: Pick<Report, 'baseline' | 'comparisons'> & Partial<Pick<Report, 'routeCpu'>>): string[] {
  const out: string[] = [];
  const refs = [
    ...(r.baseline ? [`\`${r.baseline.ref}\` (${r.baseline.commit.slice(0, 7)})`] : []),
    ...(r.routeCpu ? [`\`${r.routeCpu.ref}\` (${r.routeCpu.commit.slice(0, 7)}, the routes)`] : []),
  ];
  if (!refs.length) return ['No baseline in this run (`npm run bench -- --baseline <git ref>` measures one beside every figure).', ''];
  const at = refs.join(' or ');
  const regressions = r.comparisons.filter((c) => c.regression);
  out.push(`## Against the baseline${refs.length > 1 ? 's' : ''} ${refs.join(' and ')}`, '');
  if (regressions.length) {
    out.push(`**${regressions.length} regression${regressions.length > 1 ? 's' : ''} of more than ${REGRESSION_TOLERANCE * 100}% against ${at}:**`, '');
    for (const c of regressions) {
      out.push(
        `- **${c.what}**: ${fmtFigure(c.current, c.unit)} vs ${fmtFigure(c.baseline, c.unit)} (${c.ratio}× the baseline, ${c.higherIsBetter ? 'higher' : 'lower'} is better)`,
      );
      if (c.why) out.push(`  ${c.why}`);
    }
  } else out.push(`No figure is more than ${REGRESSION_TOLERANCE * 100}% worse than ${at}.`);
  out.push(
    '',
    "Both trees measured in this run, alternately (per route, run scenario, replica count and start), with the same client. A route against the route baseline is judged, as its target is, by the median of its rounds' ratios (each round both trees in turn), not by the ratio of the two medians beside it:",
    '',
  );
  out.push('| Figure | current | baseline | current ÷ baseline | change | |', '|---|--:|--:|--:|--:|---|');
  for (const c of r.comparisons)
    out.push(
      `| ${c.what} (${c.unit}, ${c.higherIsBetter ? 'higher' : 'lower'} is better) | ${fmtFigure(c.current, c.unit)} | ${fmtFigure(c.baseline, c.unit)} | ${fmt(c.ratio, 3)} | ${pctChange(c)} | ${c.regression ? '**regression**' : ''} |`,
    );
  if (!r.comparisons.length) out.push('| (no figure measured on both) | | | | | |');
  out.push('');
  return out;
}

const fmtFigure = (n: number, unit: string) => (unit === 'ms' && n < 100 ? fmtMs(n) : fmt(n, n < 100 ? 1 : 0)) + ' ' + unit;

/** Where a missed target's explanation is: an anchor of the report's own, numbered in the order of the targets. */
const whyAnchor = (index: number) => `why-${index + 1}`;

/** The report's first section: every target in one line each, met or missed, a missed one linked to its explanation. */
export function targetsSection(targets: Target[]): string[] {
  const out = ['## Targets', '', '| Target | Goal | Measured | | |', '|---|---|---|---|---|'];
  targets.forEach((t, i) => out.push(`| ${t.name} | ${t.goal} | ${t.value} | ${yes(t.met)} | ${t.met === false ? `[why](#${whyAnchor(i)})` : ''} |`));
  out.push('');
  return out;
}

/** Each missed target's explanation, under an anchor the targets' table links to. */
export function missedSection(targets: Target[]): string[] {
  if (!targets.some((t) => t.met === false)) return [];
  const out = ['## Why targets were missed', ''];
  targets.forEach((t, i) => {
    if (t.met !== false) return;
    out.push(`<a id="${whyAnchor(i)}"></a>`, '', `### ${t.name}`, '', `${t.value} (goal ${t.goal}).${t.why ? ` ${t.why}` : ''}`, '');
  });
  return out;
}

export function renderMarkdown(r: Report): string {
  const out: string[] = [];
  const line = (s = '') => out.push(s);
  line('# Benchmarks');
  line();
  line(
    `Generated by \`npm run bench\` on ${r.generatedAt} in ${fmt(r.seconds)} s. Every ratio compares figures measured in the same run on the same machine. Raw figures: [benchmarks.json](benchmarks.json).`,
  );
  if (r.merged?.length) {
    line();
    line(
      `**Figures from ${r.merged.length + 1} runs in this report.** Every figure not named here, and the machine's load below, are from the full run of ${r.generatedAt}; these phases' figures (and the ratios and targets read from them) were measured again later and merged in (\`BENCH_MERGE\`):`,
    );
    line();
    for (const m of r.merged)
      line(
        `- ${m.phases.join(', ')}: on ${m.measuredAt}, in a run of ${fmt(m.seconds)} s, load average at start ${m.loadAverageAtStart.join(', ')}, at end ${m.loadAverageAtEnd.join(', ')}.`,
      );
    const runOf = (phase: string) => r.merged!.find((m) => m.phases.includes(phase))?.measuredAt ?? r.generatedAt;
    if (runOf('writes') !== runOf('postgres')) {
      line();
      line(
        "The embedded store's and PostgreSQL's write/read figures come from different runs: a ratio between them compares different hours of a shared machine.",
      );
    }
  }
  line();
  for (const l of targetsSection(r.targets)) line(l);
  for (const l of baselineSection(r)) line(l);
  for (const l of missedSection(r.targets)) line(l);
  line('![Throughput by scenario](benchmarks.svg)');
  line();
  line('## Machine and versions');
  line();
  line(`- ${r.machine.cpuModel}, ${r.machine.cores} cores, ${fmt(r.machine.memoryGB, 1)} GB RAM, ${r.machine.os}, Node ${r.machine.node}`);
  line(
    `- Load average (1, 5, 15 min) at start ${r.machine.loadAverageAtStart.join(', ')}, at end ${r.machine.loadAverageAtEnd.join(', ')}: other work on the machine shares its cores with the bench`,
  );
  for (const [name, version] of Object.entries(r.versions)) line(`- ${name} ${version}`);
  line();
  line('## Method');
  line();
  for (const m of r.method) line(`- ${m}`);
  line();
  line('## HTTP overhead');
  line();
  line('| Route | Server | req/s | p50 ms | p99 ms | server CPU µs/request | requests | non-2xx |');
  line('|---|---|--:|--:|--:|--:|--:|--:|');
  for (const h of r.http)
    line(
      `| \`${h.route}\` | ${serverName(r, h.server)} | ${fmt(h.rps)} | ${fmtMs(h.p50Ms)} | ${fmtMs(h.p99Ms)} | ${fmt(h.cpuUsPerRequest, 1)} | ${fmt(h.requests)} | ${fmt(h.non2xx)} |`,
    );
  line();
  line('## Writes as data grows');
  line();
  line(
    `One tenant grows to 100,000 deployments here, so these servers run with ${Object.entries(WRITES_QUOTA_ENV)
      .map(([k, v]) => `\`${k}=${v}\``)
      .join(', ')} (defaults 100 and 200).`,
  );
  line();
  if (r.seeding.length) {
    // autocannon stops on its once-a-second tick, so a batch of a few hundred reads as ~1 s
    for (const s of r.seeding.filter((x) => x.count >= 1000))
      line(`- Seeding ${s.what}: ${fmt(s.count)} in ${fmt(s.seconds, 1)} s (${fmt(s.perSecond)}/s), ${s.how}.`);
    line();
  }
  line('| Operation | Store | Existing deployments | p50 ms | p99 ms | req/s | requests |');
  line('|---|---|--:|--:|--:|--:|--:|');
  for (const w of r.writes)
    line(
      `| \`${w.op}\` | ${w.store === 'postgresql' ? 'PostgreSQL' : 'embedded'}${w.server ? ` (${w.server})` : ''} | ${fmt(w.existing)} | ${fmtMs(w.p50Ms)} | ${fmtMs(w.p99Ms)} | ${fmt(w.rps)} | ${fmt(w.requests)} |`,
    );
  line();
  line('## Replicas on one PostgreSQL database');
  line();
  const reps = r.replicas ?? [];
  if (reps.length) {
    line(
      "| Tree | Store | Replicas | Graph | AGENTPLANE_RUN_WORKERS | threads | runs | seconds | runs/s | not success | threads with a wrong history | replicas' CPU s | CPU ms per run | PostgreSQL statements per run | load average before → after (1, 5, 15 min) | rounds (runs/s; CPU ms per run) |",
    );
    line('|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|');
    for (const x of reps)
      line(
        `| ${x.server ?? 'current'} | ${x.store === 'embedded' ? 'embedded store, same workload' : 'PostgreSQL'} | ${x.replicas} | ${graphName(x.graph)} | ${x.workers} | ${fmt(x.threads)} | ${fmt(x.runs)} | ${fmt(x.seconds, 2)} | ${fmt(x.runsPerSecond, 1)} | ${fmt(x.failed)} | ${fmt(x.threadsWrong)} | ${fmt(x.replicaCpuSeconds, 2)} | ${fmt(x.cpuMsPerRun, 2)} | ${fmt(x.statementsPerRun, 1)} | ${x.loadBefore.join(', ')} → ${x.loadAfter.join(', ')} | ${x.rounds ? x.rounds.map((o) => `${fmt(o.runsPerSecond, 1)}; ${fmt(o.cpuMsPerRun, 2)}`).join(' · ') : '—'} |`,
      );
    line();
    line(
      `The machine has ${r.machine.cores} cores, shared by the replicas, PostgreSQL and the load generator: two replicas cannot do more than the cores allow, whatever the code.`,
    );
    if (reps.some((x) => x.store === 'embedded')) {
      line();
      line(
        "The rows on the embedded store are the current tree's one process with no database, given the same runs in the same rounds as the replicas (in turn with them): the reference one replica's runs/s is read against (issue 57), for each graph. They have no statements; every PostgreSQL ratio and comparison leaves them out. The LangGraph echo rows (one replica, the default run workers, the current tree only) are read by issue 67's target of that graph alone.",
      );
    }
  } else line('Not measured in this run.');
  line();
  const ceilings = r.pgCeiling ?? [];
  if (ceilings.length) {
    line('## One PostgreSQL replica against the embedded store and the PostgreSQL ceiling (issue 87)');
    line();
    line(
      '| Graph | AGENTPLANE_RUN_WORKERS | PostgreSQL runs/s | embedded store runs/s | ceiling runs/s | ÷ embedded (range) | ÷ ceiling (range) | statements replayed per run (create + claim + execution) | goal (≥ 0.5× embedded or ≥ 0.8× ceiling) |',
    );
    line('|---|--:|--:|--:|--:|--:|--:|--:|---|');
    for (const x of ceilings)
      line(
        `| ${graphName(x.graph)} | ${x.workers} | ${fmt(x.postgres, 1)} (${x.rounds.postgres.join(', ')}) | ${fmt(x.embedded, 1)} (${x.rounds.embedded.join(', ')}) | ${fmt(x.ceiling, 1)} (${x.rounds.ceiling.join(', ')}) | ${fmt(x.toEmbedded, 3)} (${x.toEmbeddedRange.join('–')}) | ${fmt(x.toCeiling, 3)} (${x.toCeilingRange.join('–')}) | ${x.recorded.create} + 1 + ${x.recorded.execute} | ${x.met ? 'met' : '**missed**'} |`,
      );
    line();
  }
  for (const l of freshSection(r)) line(l);
  for (const l of routeCpuSection(r)) line(l);
  line('## Runs on one long-lived server each');
  line();
  line(
    'For reference beside the fresh-start comparison above (which the run targets are judged on): every server here serves all its rounds, so a server that slows as its threads accumulate is measured slower round after round.',
  );
  line();
  line('Each figure is the median round (its runs, seconds and runs/s); every round is beside it.');
  line();
  line('| Server | Graph | Scenario | runs | seconds | runs/s | rounds (runs/s) | not success |');
  line('|---|---|---|--:|--:|--:|--:|--:|');
  for (const x of r.runs)
    line(
      `| ${serverName(r, x.server)} | ${graphName(x.graph)} | ${x.scenario} | ${fmt(x.runs)} | ${fmt(x.seconds, 2)} | ${fmt(x.runsPerSecond, 1)} | ${x.rounds ? x.rounds.map((v) => fmt(v, 1)).join(', ') : '—'} | ${fmt(x.failed)} |`,
    );
  line();
  if (r.a2a)
    line(
      `A2A \`message/send\` (echo graph, ${r.a2a.connections} connections): p50 ${fmtMs(r.a2a.p50Ms)} ms, p99 ${fmtMs(r.a2a.p99Ms)} ms, ${fmt(r.a2a.rps)} req/s over ${fmt(r.a2a.requests)} calls.`,
    );
  else line('A2A `message/send`: not measured (see below).');
  line();
  line(
    `Upstream peer: \`${r.peer.package}${r.peer.version ? '@' + r.peer.version : ''}\` — ${r.peer.measured ? 'measured' : `not measured: ${r.peer.reason}`}.`,
  );
  line();
  for (const l of protocolSection(r.protocol, r.protocolRatios)) line(l);
  for (const l of fanoutSection(r.fanout)) line(l);
  line('## Under load');
  line();
  const under = r.underLoad ?? [];
  if (under.length) {
    const u0 = under[0];
    line(
      `A graph that computes for ${u0.busyMs} ms without awaiting anything: ${u0.backlogRuns} of its runs are queued at once (\`POST /runs/batch\`, each on its own thread), then for ${u0.probeSeconds} s one client checks \`GET /ok\` every 10 ms and another creates a run of \`echo\` on a new thread every 250 ms, each request timed on its own. Idle figures are taken first, on the same server, with nothing queued.`,
    );
    line();
    line(
      '| Runs execute | Tree | GET /ok p50 idle → loaded (ms) | GET /ok p99 idle → loaded (ms) | POST …/runs p50 idle → loaded (ms) | POST …/runs max loaded (ms) | probes (ok, create) |',
    );
    line('|---|---|--:|--:|--:|--:|--:|');
    for (const u of under)
      line(
        `| ${u.setting} | ${u.server === 'baseline' ? serverName(r, 'baseline') : 'current'} | ${fmtMs(u.idleOkP50Ms)} → ${fmtMs(u.loadedOkP50Ms)} | ${fmtMs(u.idleOkP99Ms)} → ${fmtMs(u.loadedOkP99Ms)} | ${fmtMs(u.idleCreateP50Ms)} → ${fmtMs(u.loadedCreateP50Ms)} | ${fmtMs(u.loadedCreateMaxMs)} | ${fmt(u.okProbes)}, ${fmt(u.createProbes)} |`,
      );
  } else line('Not measured in this run.');
  line();
  line('## Tenants in the run workers');
  line();
  const tenants = r.tenants ?? [];
  if (tenants.length) {
    line(
      `With agent-server auth on, a run worker holds one tenant's runs at a time. The same ${fmt(tenants[0].runs)} runs (a plain-function graph that awaits 200 ms, then echoes; ${fmt(tenants[0].runs / tenants[0].threads)} runs created back to back on each of ${tenants[0].threads} threads) owned by one tenant or spread over several, ${tenants[0].workers} run workers, AGENTPLANE_MAX_CONCURRENT_RUNS at its default.`,
    );
    line();
    line('| Tenants | runs | seconds | runs/s | not success |');
    line('|--:|--:|--:|--:|--:|');
    for (const t of tenants) line(`| ${t.tenants} | ${fmt(t.runs)} | ${fmt(t.seconds, 2)} | ${fmt(t.runsPerSecond, 1)} | ${fmt(t.failed)} |`);
  } else line('Not measured in this run.');
  line();
  line('## Memory and start');
  line();
  const m = r.memory;
  line('| Figure | agentplane | upstream JS dev server |');
  line('|---|--:|--:|');
  line(`| RSS idle (MB) | ${fmt(m.idleMB, 1)} | ${fmt(m.peerIdleMB, 1)} |`);
  line(`| RSS with 100,000 threads, settled (MB) | ${fmt(m.threads100kMB, 1)} | — |`);
  line(`| RSS with 100,000 threads, right after creating them (MB) | ${fmt(m.threads100kPeakMB, 1)} | — |`);
  line(`| RSS after 10,000 completed runs of \`echo\` (100 threads × 100), settled (MB) | ${fmt(m.runs10kMB, 1)} | — |`);
  line(`| RSS after 10,000 completed runs of \`echo\`, right after (MB) | ${fmt(m.runs10kPeakMB, 1)} | — |`);
  line(`| Spawn to first 200, empty data directory (ms; agentplane: median of 5) | ${fmt(m.startMs)} | ${fmt(m.peerStartMs)} |`);
  if (m.baselineStartMs != null)
    line(
      `| Spawn to first 200, empty data directory, ${serverName(r, 'baseline')} (ms; median of 5, started alternately with the current tree) | ${fmt(m.baselineStartMs)} | — |`,
    );
  line(`| Spawn to first 200, 100,000 deployments on disk (ms) | ${fmt(m.startWith100kMs)} | — |`);
  line();
  line(
    `RSS is sampled right after each burst and then every few seconds while the server is idle (${m.settleSamples.threads100k.join(', ') || '—'} MB for the threads; ${m.settleSamples.runs10k.join(', ') || '—'} MB for the runs): V8 keeps the garbage of the burst until its memory reducer runs, so "settled" is the memory the data itself holds.`,
  );
  line();
  line('## Ratios');
  line();
  line('| Ratio | Value |');
  line('|---|--:|');
  for (const [name, value] of Object.entries(r.ratios)) line(`| ${name} | ${value == null ? 'not measured' : fmt(value, 3)} |`);
  line();
  const findings = path.join(import.meta.dirname, 'findings.md');
  if (fs.existsSync(findings)) {
    line(fs.readFileSync(findings, 'utf8').trim());
    line();
  }
  if (r.skipped.length) {
    line('## Not measured');
    line();
    for (const s of r.skipped) line(`- **${s.what}**: ${s.reason.replace(/\s+/g, ' ').slice(0, 600)}`);
    line();
  }
  return out.join('\n');
}

const FRESH_NAMES = {
  agentplane: 'agentplane',
  baseline: 'agentplane at the baseline',
  peer: 'upstream JS dev server',
  'graph-alone': 'LangGraph alone (no server, its MemorySaver)',
  'runs-ceiling': 'the least server for these runs (runsCeilingServer.ts)',
} as const;

/** LangGraph runs with every server started fresh each round (freshPeer.ts). */
export function freshSection(r: Pick<Report, 'fresh' | 'baseline'>): string[] {
  const out = ['## Runs from a fresh start, through the SDK', ''];
  if (!r.fresh?.figures.length) return [...out, 'Not measured in this run.', ''];
  out.push(
    `Every server started anew for each round, then (warm-up) the same untimed runs or (no warm-up) none, then ${fmt(FRESH_ONE_THREAD_RUNS)} runs on one thread and ${fmt(FRESH_THREADS * FRESH_RUNS_PER_THREAD)} runs over ${FRESH_THREADS} threads through \`@langchain/langgraph-sdk\`; the servers' order flips every round. Each ratio is the median of the rounds' ratios, with their range.`,
    '',
  );
  // the SDK client driving the runs (older reports name none: the SDK's default client)
  const client = (c: FreshFigure['client']) => c ?? 'default client';
  out.push('| Server | Start | Scenario | Client | runs/s (median) | rounds (runs/s) | not success |', '|---|---|---|---|--:|---|--:|');
  for (const f of r.fresh.figures) {
    const name = f.server === 'baseline' && r.baseline ? `agentplane at \`${r.baseline.ref}\`` : FRESH_NAMES[f.server];
    out.push(
      `| ${name} | ${f.start} | ${f.scenario} | ${client(f.client)} | ${fmt(f.runsPerSecond, 1)} | ${f.rounds.map((v) => fmt(v, 1)).join(', ')} | ${fmt(f.failed)} |`,
    );
  }
  out.push('', '| Ratio | Start | Scenario | Client | median | min–max over rounds |', '|---|---|---|---|--:|---|');
  for (const x of r.fresh.ratios)
    out.push(
      `| ${FRESH_NAMES[x.of ?? 'agentplane']} ÷ ${x.versus === 'baseline' ? 'the baseline' : FRESH_NAMES[x.versus]} | ${x.start} | ${x.scenario} | ${client(x.client)} | ${fmt(x.ratio, 2)}× | ${fmt(x.min, 2)}–${fmt(x.max, 2)} |`,
    );
  out.push('');
  return out;
}

/** The routes against the route baseline (routeCpu.ts) by both methods: throughput and server CPU per request, the same bursts. */
export function routeCpuSection(r: Pick<Report, 'routeCpu' | 'routeCpuWarn'>): string[] {
  return [...routeCpuTable(r.routeCpu, ''), ...(r.routeCpuWarn ? routeCpuTable(r.routeCpuWarn, ' at LOG_LEVEL=warn (no access line), both trees') : [])];
}

function routeCpuTable(rc: Report['routeCpu'], label: string): string[] {
  const out = [`## Routes against \`${rc?.ref ?? 'the route baseline'}\`${label}`, ''];
  if (!rc) return [...out, 'Not measured in this run.', ''];
  out.push(
    `The current tree and \`${rc.ref}\` (${rc.commit.slice(0, 7)}, BENCH_ROUTE_BASELINE) up at once, each route driven in bursts (10 connections; the run's method list says their size) on each in turn, measured two ways in the same bursts: throughput (the burst's requests over the time to its last response; ratio current ÷ baseline) and the server's own CPU time over its requests (every thread's, from /proc/<pid>/task/*/schedstat; ratio baseline ÷ current). Above 1: better now. Each ratio is the median of the rounds' ratios with their range; where the two methods disagree, both stand.`,
    '',
    '| Route | current req/s | baseline req/s | current ÷ baseline | min–max | current µs/request | baseline µs/request | baseline ÷ current | min–max |',
    '|---|--:|--:|--:|---|--:|--:|--:|---|',
  );
  const range = (lo: number | undefined, hi: number | undefined) => (lo == null || hi == null ? '—' : `${fmt(lo, 2)}–${fmt(hi, 2)}`);
  for (const f of rc.figures)
    out.push(
      `| \`${f.route}\` | ${fmt(f.currentRps)} | ${fmt(f.baselineRps)} | ${f.rpsRatio == null ? '—' : `${fmt(f.rpsRatio, 2)}×`} | ${range(f.rpsRatioMin, f.rpsRatioMax)} | ${fmt(f.currentUs, 1)} | ${fmt(f.baselineUs, 1)} | ${fmt(f.ratio, 2)}× | ${range(f.ratioMin, f.ratioMax)} |`,
    );
  const clients = rc.figures.filter((f) => f.clientShare != null);
  if (clients.length)
    out.push(
      '',
      `The load generator (autocannon, in the bench's own process), its CPU a request on the current tree / the baseline and its share of one core over a burst (median, highest): ${clients.map((f) => `\`${f.route}\` ${fmt(f.currentClientUs!, 1)} / ${fmt(f.baselineClientUs!, 1)} µs, ${fmt(f.clientShare!, 2)} (${fmt(f.clientShareMax!, 2)})`).join('; ')}. Near one core the client, not the server, would bound the throughput.`,
    );
  out.push('');
  return out;
}
