// Protocol v2 (the thread-centric protocol: a `run.start` command, the thread's event stream)
// beside run streams (`POST /threads/{id}/runs/stream`), on agentplane and the upstream dev
// server: the figures of the `protocol` phase (protocol.ts), the ratios read from them and
// their section of the report. Every ratio is taken round by round (both transports and both
// servers measured in the same round) and reported as the median of the rounds with its range.

export type ProtocolServer = 'agentplane' | 'peer';
export type Transport = 'protocol-v2' | 'run-stream';

export interface ProtocolRound {
  runsPerSecond: number;
  /** Send of the command (resp. the run-stream POST) to the run's first event on the stream. */
  firstEventP50Ms: number;
  firstEventP95Ms: number;
}

export interface ProtocolFigure {
  server: ProtocolServer;
  transport: Transport;
  graph: string;
  /** Throughput: `threads` clients, each running `runsPerThread` runs one after another on its thread. */
  threads: number;
  runsPerThread: number;
  /** First-event latency: runs one at a time on one thread, per round. */
  latencyRuns: number;
  /** The median of the rounds' runs/s. */
  runsPerSecond: number;
  /** p50 and p95 of every round's first-event latencies pooled (a round alone has too few for a p95 of its own that is not its slowest). */
  firstEventP50Ms: number;
  firstEventP95Ms: number;
  /** Runs whose stream ended without the run's completion, over every round (should be 0). */
  failed: number;
  /** Each round's figures, in order: round i of every figure was measured in the same round. */
  rounds: ProtocolRound[];
}

/** A ratio of two figures measured in the same rounds: the median of the per-round ratios, and their range. */
export interface ProtocolRatio {
  what: string;
  /** runs/s (higher is better) or ms (lower is better). */
  unit: 'runs/s' | 'ms';
  median: number | null;
  min: number | null;
  max: number | null;
  rounds: number[];
}

const TRANSPORT_NAMES: Record<Transport, string> = { 'protocol-v2': 'protocol v2', 'run-stream': 'run streams' };
const SERVER_NAMES: Record<ProtocolServer, string> = { agentplane: 'agentplane', peer: 'upstream dev server' };
const METRICS = [
  ['throughput', 'runsPerSecond', 'runs/s'],
  ['first-event p50', 'firstEventP50Ms', 'ms'],
  ['first-event p95', 'firstEventP95Ms', 'ms'],
] as const;

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The middle value (the mean of the two middle ones for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The value at quantile q (nearest rank) of the samples. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

function perRound(what: string, unit: ProtocolRatio['unit'], a: ProtocolRound[] | undefined, b: ProtocolRound[] | undefined, key: keyof ProtocolRound) {
  const rounds: number[] = [];
  for (let i = 0; a && b && i < Math.min(a.length, b.length); i += 1) if (b[i][key] > 0) rounds.push(round3(a[i][key] / b[i][key]));
  const none = !rounds.length;
  return {
    what,
    unit,
    median: none ? null : round3(median(rounds)),
    min: none ? null : Math.min(...rounds),
    max: none ? null : Math.max(...rounds),
    rounds,
  };
}

/** Protocol v2 ÷ run streams on each server, and agentplane ÷ upstream on each transport, for every figure. */
export function protocolRatios(figures: ProtocolFigure[]): ProtocolRatio[] {
  const of = (server: ProtocolServer, transport: Transport) => figures.find((f) => f.server === server && f.transport === transport)?.rounds;
  const out: ProtocolRatio[] = [];
  for (const [name, key, unit] of METRICS) {
    for (const server of ['agentplane', 'peer'] as const)
      out.push(perRound(`${name}, ${SERVER_NAMES[server]}: protocol v2 ÷ run streams`, unit, of(server, 'protocol-v2'), of(server, 'run-stream'), key));
    for (const transport of ['protocol-v2', 'run-stream'] as const)
      out.push(
        perRound(`${name}, ${TRANSPORT_NAMES[transport]}: agentplane ÷ upstream dev server`, unit, of('agentplane', transport), of('peer', transport), key),
      );
  }
  return out;
}

const num = (n: number | null, digits: number) =>
  n == null ? '—' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The report's section: every figure with its rounds, then every ratio with its range over the rounds. */
export function protocolSection(figures: ProtocolFigure[] | undefined, ratios: ProtocolRatio[] | undefined): string[] {
  const out = ['## Protocol v2 and run streams', ''];
  if (!figures?.length) return [...out, 'Not measured in this run.', ''];
  const f0 = figures[0];
  out.push(
    `The same LangGraph echo runs driven over protocol v2 (\`POST /threads/{id}/commands\` \`run.start\`, the thread's events read from \`POST /threads/{id}/stream/events\` until the run's root \`lifecycle\` ends) and over run streams (\`POST /threads/{id}/runs/stream\`, read to its end), on agentplane and on the upstream dev server, every combination once in each round. Throughput: ${f0.threads} threads × ${f0.runsPerThread} runs one after another. First event: ${f0.latencyRuns} runs one at a time on one thread, from sending the command (resp. the run-stream POST) to the run's first event; its p50 and p95 over every round's runs pooled. runs/s is the median of the rounds. Each ratio is the median of the per-round ratios (min–max beside it), each round's p50 and p95 its own (with so few runs, a round's p95 is its slowest).`,
    '',
    '| Server | Transport | runs/s | first event p50 ms | first event p95 ms | not completed | rounds (runs/s; p50; p95) |',
    '|---|---|--:|--:|--:|--:|---|',
  );
  for (const f of figures)
    out.push(
      `| ${SERVER_NAMES[f.server]} | ${TRANSPORT_NAMES[f.transport]} | ${num(f.runsPerSecond, 1)} | ${num(f.firstEventP50Ms, 2)} | ${num(f.firstEventP95Ms, 2)} | ${f.failed} | ${f.rounds.map((r) => `${num(r.runsPerSecond, 1)}; ${num(r.firstEventP50Ms, 1)}; ${num(r.firstEventP95Ms, 1)}`).join(' · ')} |`,
    );
  out.push('', '| Ratio | median | min–max over rounds |', '|---|--:|--:|');
  for (const r of ratios ?? []) out.push(`| ${r.what} (${r.unit}) | ${num(r.median, 3)} | ${num(r.min, 3)}–${num(r.max, 3)} |`);
  out.push('', 'A throughput ratio above 1 is faster; a latency ratio above 1 is slower.', '');
  return out;
}
