// The `protocol` phase's figures in the bench report: protocol v2 ÷ run streams per server and
// agentplane ÷ upstream per transport, each the median of per-round ratios with its range,
// in the JSON and the markdown. Made-up figures; the bench itself is `npm run bench`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { deriveRatios, emptyMemory, SHARED_GRAPH, type Measured, type Report } from '../../scripts/bench/figures.ts';
import type { ProtocolFigure, ProtocolRound, ProtocolServer, Transport } from '../../scripts/bench/protocolFigures.ts';
import { mergeReports, writeReport } from '../../scripts/bench/report.ts';
import { tempDir } from '../support/tempDirs.ts';

const rounds = (...rs: [number, number, number][]): ProtocolRound[] =>
  rs.map(([runsPerSecond, firstEventP50Ms, firstEventP95Ms]) => ({ runsPerSecond, firstEventP50Ms, firstEventP95Ms }));

const figure = (server: ProtocolServer, transport: Transport, rs: ProtocolRound[]): ProtocolFigure => ({
  server,
  transport,
  graph: SHARED_GRAPH,
  threads: 8,
  runsPerThread: 5,
  latencyRuns: 15,
  runsPerSecond: [...rs].map((r) => r.runsPerSecond).sort((a, b) => a - b)[1],
  firstEventP50Ms: [...rs].map((r) => r.firstEventP50Ms).sort((a, b) => a - b)[1],
  firstEventP95Ms: [...rs].map((r) => r.firstEventP95Ms).sort((a, b) => a - b)[1],
  failed: 0,
  rounds: rs,
});

// three rounds; round i of every figure measured in the same round
const PROTOCOL: ProtocolFigure[] = [
  figure('agentplane', 'protocol-v2', rounds([100, 4, 8], [90, 5, 10], [120, 4, 6])),
  figure('agentplane', 'run-stream', rounds([200, 2, 4], [100, 4, 5], [150, 2, 3])),
  figure('peer', 'protocol-v2', rounds([50, 8, 16], [45, 10, 20], [40, 8, 12])),
  figure('peer', 'run-stream', rounds([40, 4, 8], [50, 5, 10], [60, 4, 6])),
];

function report(protocol?: ProtocolFigure[]): Report {
  const measured: Measured = {
    generatedAt: '2026-01-01T00:00:00.000Z',
    seconds: 60,
    machine: { cpuModel: 'Test CPU', cores: 2, memoryGB: 8, os: 'Linux 6', node: '20.0.0', loadAverageAtStart: [1, 1, 1], loadAverageAtEnd: [1, 1, 1] },
    versions: {},
    method: [],
    http: [],
    seeding: [],
    writes: [],
    runs: [],
    ...(protocol ? { protocol } : {}),
    a2a: null,
    memory: emptyMemory(),
    peer: { measured: false, package: '@langchain/langgraph-cli', version: null, reason: 'not run' },
    skipped: [],
  };
  return { ...measured, ...deriveRatios(measured) };
}

test('protocol v2 is read against run streams per server and against upstream per transport, round by round, median and range', () => {
  const ratios = report(PROTOCOL).protocolRatios!;
  const of = (what: string) => {
    const r = ratios.find((x) => x.what === what);
    assert.ok(r, `${what} in ${ratios.map((x) => x.what).join('; ')}`);
    return r;
  };
  // per round 0.5, 0.9, 0.8: the median of the ratios, not the ratio of the medians (120 ÷ 150)
  assert.deepEqual(of('throughput, agentplane: protocol v2 ÷ run streams'), {
    what: 'throughput, agentplane: protocol v2 ÷ run streams',
    unit: 'runs/s',
    median: 0.8,
    min: 0.5,
    max: 0.9,
    rounds: [0.5, 0.9, 0.8],
  });
  assert.deepEqual(of('throughput, upstream dev server: protocol v2 ÷ run streams').rounds, [1.25, 0.9, 0.667]);
  assert.equal(of('throughput, upstream dev server: protocol v2 ÷ run streams').median, 0.9);
  assert.deepEqual(of('throughput, protocol v2: agentplane ÷ upstream dev server').rounds, [2, 2, 3]);
  assert.deepEqual(of('throughput, run streams: agentplane ÷ upstream dev server').rounds, [5, 2, 2.5]);
  assert.equal(of('first-event p50, agentplane: protocol v2 ÷ run streams').median, 2);
  assert.deepEqual(of('first-event p50, agentplane: protocol v2 ÷ run streams').rounds, [2, 1.25, 2]);
  assert.deepEqual(of('first-event p95, protocol v2: agentplane ÷ upstream dev server').rounds, [0.5, 0.5, 0.5]);
  assert.deepEqual(of('first-event p50, run streams: agentplane ÷ upstream dev server'), {
    what: 'first-event p50, run streams: agentplane ÷ upstream dev server',
    unit: 'ms',
    median: 0.5,
    min: 0.5,
    max: 0.8,
    rounds: [0.5, 0.8, 0.5],
  });
  assert.equal(ratios.length, 12, 'three figures, each by four ratios');
  // a server not measured leaves its ratios empty, not made up
  const alone = report(PROTOCOL.filter((f) => f.server === 'agentplane')).protocolRatios!;
  assert.equal(alone.find((x) => x.what === 'throughput, run streams: agentplane ÷ upstream dev server')!.median, null);
  assert.equal(alone.find((x) => x.what === 'throughput, agentplane: protocol v2 ÷ run streams')!.median, 0.8);
});

test('the report carries the protocol figures and ratios in its JSON and a section of the markdown; an older report says not measured', () => {
  const dir = tempDir('bench-protocol-');
  try {
    const full = report(PROTOCOL);
    const files = writeReport(full, dir);
    const json = JSON.parse(fs.readFileSync(files.json, 'utf8')) as Report;
    assert.deepEqual(json.protocol, PROTOCOL);
    assert.equal(json.protocolRatios!.find((r) => r.what === 'throughput, agentplane: protocol v2 ÷ run streams')!.median, 0.8);
    const md = fs.readFileSync(files.md, 'utf8');
    assert.match(md, /## Protocol v2 and run streams/);
    assert.match(md, /8 threads × 5 runs one after another/);
    assert.match(md, /\| agentplane \| protocol v2 \| 100\.0 \| 4\.00 \| 8\.00 \| 0 \| 100\.0; 4\.0; 8\.0 · 90\.0; 5\.0; 10\.0 · 120\.0; 4\.0; 6\.0 \|/);
    assert.match(md, /\| upstream dev server \| run streams \| 50\.0 \|/);
    assert.match(md, /\| throughput, agentplane: protocol v2 ÷ run streams \(runs\/s\) \| 0\.800 \| 0\.500–0\.900 \|/);
    assert.match(md, /\| first-event p50, run streams: agentplane ÷ upstream dev server \(ms\) \| 0\.500 \| 0\.500–0\.800 \|/);
    const older = writeReport(report(), dir);
    assert.match(fs.readFileSync(older.md, 'utf8'), /## Protocol v2 and run streams\n\nNot measured in this run\./);
    // BENCH_ONLY=protocol with BENCH_MERGE: the phase's figures go into an earlier report
    assert.deepEqual(mergeReports(report(), full, ['protocol']).protocol, PROTOCOL);
    // the earlier run's method stays, each merged phase's bullet replaced by the new run's
    const earlier = { ...report(), method: ['Runs: background runs, as before', 'Fan-out (issue 57): the old way'] };
    const fresh = { ...report(), method: ['Fan-out (issue 57): sampled for at most 20 s'], fanout: null };
    assert.deepEqual(mergeReports(earlier, fresh, ['fanout']).method, ['Runs: background runs, as before', 'Fan-out (issue 57): sampled for at most 20 s']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
