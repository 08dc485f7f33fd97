// The `fanout` phase (issue 57): many clients reading running threads at once, as a dashboard
// or a team's useStream pages do. Half the subscribers hold protocol v2 over SSE
// (`POST /threads/{id}/stream/events`), half over its WebSocket (`subscription.subscribe`), spread
// over a few threads on which echo runs, started as protocol v2 clients start them (`run.start`),
// follow one another for the whole measurement. Beside
// them, and once before them on the idle server, the two figures a user feels: `/ok`'s p99 and
// a new run's first event (a run stream on a thread of its own). Then the cost of a replay:
// the last run's events asked `since` the event before it, on a thread with a short history
// and on one with a long one; a replay that costs what it returns takes the same time on both.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { expectStatus, flagsAndSettings, request, ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import { CHANNELS, json, type FanoutTarget } from './fanoutClients.ts';
import { DELIVERY_SAMPLE_EVERY, openSubscribers, type DeliveryFigure } from './fanoutSubscribers.ts';
import { freePort, startChild } from './proc.ts';
import { timelineSize, windowClumps, windowDeliveries } from './fanoutTimeline.ts';
import { writeBenchGraph } from './graph.ts';

export { DELIVERY_SAMPLE_EVERY, type DeliveryFigure };

export interface FanoutFigure {
  subscribers: { sse: number; websocket: number };
  threads: number;
  /** Runs the threads ran while the subscribers read them, and events the subscribers received. */
  runs: number;
  eventsReceived: number;
  /** Subscribers that did not open, or closed before the end. */
  failedSubscribers: number;
  /**
   * Events some subscriber missed (issue 87): every subscriber of a thread reads the same channels
   * from its start, so each should have received what the one that received most on its thread
   * did; the sum of the shortfalls. Absent in older reports.
   */
  lostEvents?: number;
  /** How long the runs went under the subscribers, in s (the event rate the ceiling plays). */
  loadedSeconds?: number;
  idle: { okP99Ms: number; firstEventMs: number };
  /** The same runs going on the same threads, with no subscriber: what the runs cost by themselves. */
  runsAlone: { okP99Ms: number; firstEventMs: number };
  loaded: { okP99Ms: number; firstEventMs: number; okSamples?: number; firstEventSamples?: number };
  okP99Ratio: number;
  firstEventRatio: number;
  /**
   * Issue 67: an event's delivery under the subscribers, over every DELIVERY_SAMPLE_EVERY-th
   * of them (values and messages events): the subscriber's clock when it read the event minus
   * the server's `params.timestamp` on it (when the server made it, before it was written to
   * the log), ms. Absent in older reports and when no sampled subscriber read an event.
   */
  delivery?: DeliveryFigure | null;
  replay: { shortHistoryEvents: number; longHistoryEvents: number; returned: number; shortMs: number; longMs: number; ratio: number };
  /** The same subscribers on a bare node:http broadcaster at the same event rate, measured in the same run (issue 87); absent in older reports. */
  ceiling?: CeilingFigure | null;
  /** Loaded `/ok` p99 ÷ the ceiling's under the same subscribers. */
  okP99VsCeiling?: number;
}

export interface CeilingFigure {
  /** Events it played a run of agentplane's, and agentplane's runs/s a thread under the subscribers. */
  eventsPerRun: number;
  runsPerSecondPerThread: number;
  /**
   * What it played (fanoutTimeline.ts): on each thread, the events agentplane's matching thread sent
   * in its loaded window at their times in it — how many in all (a subscriber of each thread
   * receives its thread's), and over how long in s. Absent before 2026-12-02 (one run on a timer).
   */
  eventsPlayed?: number;
  playedSeconds?: number;
  /**
   * What the window's events come to over the subscribers (each thread's × its subscribers): what
   * the ceiling's subscribers should receive, and agentplane's did besides the history each was
   * replayed when it subscribed (they read from the thread's start).
   */
  windowDeliveries?: number;
  opened: number;
  failedSubscribers: number;
  eventsReceived: number;
  lostEvents: number;
  idle: { okP99Ms: number };
  loaded: { okP99Ms: number; okSamples: number };
  delivery: DeliveryFigure | null;
  /**
   * BENCH_FANOUT_CEILING_BESIDE_RUNS=1: an extra figure, not the target's. The ceiling's window
   * played a second time while agentplane's runs go on its threads beside it (its drivers started
   * again, no subscriber on agentplane): the runs' CPU on the same 2 cores and the runs' requests
   * in the same client loop as the `/ok` samples, which the ceiling's own figure is taken without.
   */
  besideRuns?: { okP99Ms: number; okSamples: number; delivery: DeliveryFigure | null; runs: number; lostEvents: number; failedSubscribers: number };
  /**
   * BENCH_FANOUT_CEILING_BESIDE_GRAPH=1: an extra figure, not the target's. The ceiling's window
   * played a second time while LangGraph alone (graphAlonePaced.ts: no server, its in-memory
   * checkpointer) runs the same graph on as many threads at agentplane's loaded rate, each thread's
   * state as long, at the run workers' lower priority: LangGraph's own work on those runs without a
   * server's, beside the broadcaster (is the runs' CPU on the cores what keeps `/ok` from the ceiling?).
   * `runs` and `cpuMsPerRun`: what LangGraph alone ran meanwhile.
   */
  besideGraph?: {
    okP99Ms: number;
    okSamples: number;
    delivery: DeliveryFigure | null;
    runs: number;
    runsPerSecond: number;
    cpuMsPerRun: number;
    lostEvents: number;
    failedSubscribers: number;
  };
}

/** agentplane started fresh for the fan-out phase in `work`, from the tree at `root`: the stream caps raised for its subscribers; `NAME=value` among `nodeArgs` sets its environment. */
export function startFanoutServer(work: string, root = ROOT, nodeArgs: string[] = []): Promise<Agentplane> {
  const { flags, env } = flagsAndSettings(nodeArgs);
  const caps = { AGENTPLANE_MAX_STREAMS_PER_CLIENT: '5000', AGENTPLANE_MAX_STREAMS: '5000' };
  return startAgentplane({ dataDir: path.join(work, 'data'), workDir: work, root, env: { ...caps, ...env }, nodeArgs: flags });
}

const OK_SAMPLES = 400;
const FIRST_EVENT_SAMPLES = 15;
const REPLAY_SAMPLES = 7;
/**
 * Each figure's sampling stops after this long, with the samples taken by then (at least a few):
 * under load a slow server would otherwise stretch the loaded phase, its runs piling up on the
 * threads meanwhile, each run then carrying a longer state than the last (a run away).
 */
const SAMPLING_MS = 20_000;
const MIN_SAMPLES = 5;
/** How many samples the last figures were made of; the last `/ok` samples' [sent, read] in µs on the monotonic clock (okSamples.ts). */
const sampled = { ok: 0, firstEvent: 0, okSpans: [] as [number, number][], keylessP99: undefined as number | undefined };
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const r2 = (x: number) => Math.round(x * 100) / 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

const input = () => ({ messages: [{ role: 'user', content: `fan-out ${randomUUID()}` }] });

let commandId = 0;

/** The last answers agentplane's drivers read (a run.start's and a join's): what the full ceiling answers its paced drivers with. */
export const lastAnswers = { start: '', join: '' };

/** One run on the thread as a protocol v2 client starts it (`run.start`), waited for to its end: whether it succeeded. */
export async function protocolRun(t: FanoutTarget, thread: string): Promise<boolean> {
  const res = await json(t, `/threads/${thread}/commands`, {
    id: (commandId += 1),
    method: 'run.start',
    params: { assistant_id: t.assistant, input: input() },
  });
  const text = await res.text();
  const answer = JSON.parse(text) as { type?: string; result?: { run_id?: string } };
  if (res.status !== 200 || answer.type !== 'success' || !answer.result?.run_id)
    throw new Error(`run.start: HTTP ${res.status} ${JSON.stringify(answer).slice(0, 200)}`);
  const joined = await fetch(`${t.url}/threads/${thread}/runs/${answer.result.run_id}/join`, { headers: t.headers });
  const body = await joined.arrayBuffer();
  // agentplane's answers only: the broadcaster's target names no assistant
  if (t.assistant) {
    lastAnswers.start = text;
    lastAnswers.join = Buffer.from(body).toString('utf8');
  }
  return joined.status === 200;
}

export async function newThread(t: FanoutTarget): Promise<string> {
  const res = await request(`${t.url}/threads`, { method: 'POST', headers: t.headers, json: {} });
  expectStatus('POST /threads', res, 200, 201);
  return res.body.thread_id as string;
}

/**
 * BENCH_FANOUT_OK_KEYLESS=1 (fanoutGaps.ts): each `/ok` sample is followed by one sent without the
 * API key, as a load balancer's probe is sent; their p99 is kept beside the figure's
 * (`sampled.keylessP99`), which stays the keyed samples'. A request with the key is its tenant's,
 * and a tenant's request while two of its own are under way waits for its tenant's turn of the
 * loop (tenantTurns.ts): the phase's drivers hold 20 joins open.
 */
const KEYLESS_PAIRS = process.env.BENCH_FANOUT_OK_KEYLESS === '1';
const keylessNote = (p99Ms: number | undefined) => (p99Ms === undefined ? '' : ` (sent without the key: p99 ${p99Ms} ms)`);

/** `/ok` one request after another; its p99 in ms. */
async function okP99(t: FanoutTarget): Promise<number> {
  const times: number[] = [];
  const keyless: number[] = [];
  const spans: [number, number][] = [];
  const keyed = async () => {
    const from = monotonicUs();
    const started = performance.now();
    const res = await fetch(`${t.url}/ok`, { headers: t.headers });
    await res.arrayBuffer();
    times.push(performance.now() - started);
    spans.push([from, monotonicUs()]);
  };
  const probe = async () => {
    const started = performance.now();
    await (await fetch(`${t.url}/ok`)).arrayBuffer();
    keyless.push(performance.now() - started);
  };
  const until = performance.now() + SAMPLING_MS;
  for (let i = 0; i < OK_SAMPLES && (i < MIN_SAMPLES || performance.now() < until); i += 1) {
    // a pair's order alternates: neither kind always follows the other
    if (KEYLESS_PAIRS && i % 2 === 1) await probe();
    await keyed();
    if (KEYLESS_PAIRS && i % 2 === 0) await probe();
  }
  sampled.ok = times.length;
  sampled.okSpans = spans;
  sampled.keylessP99 = KEYLESS_PAIRS ? r2(p99(keyless)) : undefined;
  return r2(p99(times));
}

/** Runs one at a time on a thread of their own: the median time from the run-stream POST to its first event, in ms. */
async function firstEvent(t: FanoutTarget): Promise<number> {
  const thread = await newThread(t);
  const times: number[] = [];
  const until = performance.now() + SAMPLING_MS;
  for (let i = 0; i < FIRST_EVENT_SAMPLES && (i < MIN_SAMPLES || performance.now() < until); i += 1) {
    const started = performance.now();
    const res = await json(t, `/threads/${thread}/runs/stream`, { assistant_id: t.assistant, input: input(), stream_mode: ['values'] });
    const reader = res.body!.getReader();
    let first = -1;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (first < 0 && value && Buffer.from(value).toString('utf8').includes('data:')) first = performance.now() - started;
    }
    times.push(first);
  }
  sampled.firstEvent = times.length;
  return r2(median(times));
}

interface ThreadEvent {
  type?: string;
  seq?: number;
  method?: string;
  params?: { namespace?: string[]; data?: { event?: string } };
}

/** The protocol's events of a thread stream as they arrive; ends with the stream, or after `quietMs` without one when given. */
async function* threadEvents(res: Response, quietMs?: number): AsyncGenerator<ThreadEvent & { seq: number }> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const quiet = () => new Promise<null>((resolve) => setTimeout(() => resolve(null), quietMs));
  let buffer = '';
  for (;;) {
    const next = await (quietMs === undefined ? reader.read() : Promise.race([reader.read(), quiet()]));
    if (next === null || next.done) return;
    buffer += next.value;
    let at: number;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const data = buffer
        .slice(0, at)
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5))
        .join('\n');
      buffer = buffer.slice(at + 2);
      if (!data) continue;
      const event = JSON.parse(data) as ThreadEvent;
      if (event.type === 'event' && typeof event.seq === 'number') yield event as ThreadEvent & { seq: number };
    }
  }
}

/** The events of a thread from `since` until one with seq ≥ `until` arrives; the time it took in ms and how many came. */
async function replay(t: FanoutTarget, thread: string, since: number, until: number): Promise<{ ms: number; events: number }> {
  const abort = new AbortController();
  const started = performance.now();
  let events = 0;
  try {
    const res = await json(t, `/threads/${thread}/stream/events`, { channels: CHANNELS, since }, abort.signal);
    for await (const event of threadEvents(res)) {
      events += 1;
      if (event.seq >= until) return { ms: performance.now() - started, events };
    }
    throw new Error(`the replay of thread ${thread} ended before seq ${until}`);
  } finally {
    abort.abort();
  }
}

/** Runs `count` echo runs on the thread, one after another; the seq of the thread's last event before the last run, and the last seq. */
async function history(t: FanoutTarget, thread: string, count: number): Promise<{ beforeLast: number; last: number; total: number }> {
  for (let i = 0; i < count; i += 1) if (!(await protocolRun(t, thread))) throw new Error(`thread ${thread}: a run did not end well`);
  // every event of the thread once, to find where the last run's events begin
  const seqs: { seq: number; root: boolean; running: boolean }[] = [];
  const abort = new AbortController();
  const res = await json(t, `/threads/${thread}/stream/events`, { channels: ['lifecycle'], since: 0 }, abort.signal);
  for await (const e of threadEvents(res, 500))
    seqs.push({ seq: e.seq, root: (e.params?.namespace ?? []).length === 0, running: e.params?.data?.event === 'running' });
  abort.abort();
  const starts = seqs.filter((s) => s.root && s.running);
  const lastStart = starts[starts.length - 1];
  if (!lastStart) throw new Error(`thread ${thread}: no run's start among its events`);
  return { beforeLast: lastStart.seq - 1, last: seqs[seqs.length - 1].seq, total: seqs[seqs.length - 1].seq };
}

export async function measureFanout(
  t: FanoutTarget,
  /** `ceiling: false` leaves the bare broadcaster out (an A/B of two trees, which share one run's conditions already). */
  counts: { subscribers: number; threads: number; shortHistory: number; longHistory: number; ceiling?: boolean },
  log: (s: string) => void,
  /**
   * Told when the loaded figures' sampling begins and ends, without and with the subscribers
   * (fanoutGaps.ts); at the end, with the window's `/ok` samples ([sent, read], µs, monotonic).
   */
  mark: (window: 'runs alone' | 'loaded', edge: 'from' | 'to', okSpans?: readonly [number, number][]) => void = () => {},
): Promise<FanoutFigure> {
  if (t.settled) {
    const from = performance.now();
    await t.settled();
    log(`  start-up work settled ${((performance.now() - from) / 1000).toFixed(1)} s after the server answered`);
  }
  // warm-up: the code paths of both figures and of a subscription
  await okP99(t);
  await firstEvent(t);
  const idle = { okP99Ms: await okP99(t), firstEventMs: await firstEvent(t) };
  log(`  idle: /ok p99 ${idle.okP99Ms} ms, first event ${idle.firstEventMs} ms`);

  const threads = await Promise.all(Array.from({ length: counts.threads }, () => newThread(t)));
  let running = true;
  let runs = 0;
  const drive = () =>
    threads.map(async (thread) => {
      while (running) if (await protocolRun(t, thread)) runs += 1;
    });
  let drivers = drive();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  mark('runs alone', 'from');
  const runsAlone = { okP99Ms: await okP99(t), firstEventMs: await firstEvent(t) };
  const aloneKeyless = sampled.keylessP99;
  mark('runs alone', 'to', sampled.okSpans);
  running = false;
  await Promise.all(drivers);
  // each thread's history when the loaded window begins (the runs before it: graphAlonePaced.ts gives its threads as many)
  const historyRuns = Math.round(runs / threads.length);
  log(
    `  runs on ${threads.length} threads, no subscriber: /ok p99 ${runsAlone.okP99Ms} ms${keylessNote(aloneKeyless)}, first event ${runsAlone.firstEventMs} ms`,
  );

  // the subscribers live in a worker thread of their own (fanoutSubscribers.ts)
  const held = await openSubscribers({ target: t, threads, subscribers: counts.subscribers, record: counts.ceiling !== false });
  let failedSubscribers = held.failed;
  const half = Math.floor(counts.subscribers / 2);
  log(`  ${held.opened} subscribers open (${failedSubscribers} failed to open) on ${threads.length} threads`);

  running = true;
  runs = 0;
  const loadedFrom = performance.now();
  // the server's clock (its events' stamps) when the loaded runs begin: the window the ceiling plays
  const loadedFromMs = Date.now();
  drivers = drive();
  // the runs under way before the figures are taken
  await new Promise((resolve) => setTimeout(resolve, 1000));
  mark('loaded', 'from');
  const loadedOk = await okP99(t);
  const loadedKeyless = sampled.keylessP99;
  const okSamples = sampled.ok;
  const loaded = { okP99Ms: loadedOk, firstEventMs: await firstEvent(t), okSamples, firstEventSamples: sampled.firstEvent };
  mark('loaded', 'to', sampled.okSpans);
  running = false;
  await Promise.all(drivers);
  const loadedSeconds = r2((performance.now() - loadedFrom) / 1000);
  // the last events reach the subscribers
  await new Promise((resolve) => setTimeout(resolve, 500));
  const closed = await held.close();
  const eventsReceived = closed.eventsReceived;
  const lostEvents = closed.lost;
  failedSubscribers = closed.failed;
  const delivery = closed.delivery;
  log(
    delivery
      ? `  delivery (made → read) at ${delivery.subscribers} sampled subscribers, ${delivery.events} events: p50 ${delivery.p50Ms} ms, p99 ${delivery.p99Ms} ms (the subscribers' thread ${Math.round((delivery.clientBusy ?? NaN) * 100)}% busy)`
      : '  delivery: no sampled subscriber read an event',
  );
  log(
    `  under ${held.opened} subscribers: /ok p99 ${loaded.okP99Ms} ms (${okSamples} requests)${keylessNote(loadedKeyless)}, first event ${loaded.firstEventMs} ms (${loaded.firstEventSamples} runs); ${runs} runs in ${loadedSeconds} s, ${eventsReceived} events received, ${lostEvents} lost`,
  );
  // what the ceiling plays: every thread's events of the loaded window, as its first subscriber read them
  // (read back from the server afterwards, a thread's older runs' logs are gone: it replays only the last few)
  const recorded = counts.ceiling === false ? [] : closed.recorded;

  const short = await newThread(t);
  const long = await newThread(t);
  const [s, l] = [await history(t, short, counts.shortHistory), await history(t, long, counts.longHistory)];
  const shortTimes: number[] = [];
  const longTimes: number[] = [];
  let returned = 0;
  for (let i = 0; i < REPLAY_SAMPLES; i += 1) {
    const a = await replay(t, short, s.beforeLast, s.last);
    const b = await replay(t, long, l.beforeLast, l.last);
    shortTimes.push(a.ms);
    longTimes.push(b.ms);
    returned = b.events;
  }
  const replayFigure = {
    shortHistoryEvents: s.total,
    longHistoryEvents: l.total,
    returned,
    shortMs: r2(median(shortTimes)),
    longMs: r2(median(longTimes)),
    ratio: r2(median(longTimes) / median(shortTimes)),
  };
  log(
    `  replay of the last run (${returned} events) since the event before it: ${replayFigure.shortMs} ms on a thread of ${s.total} events, ${replayFigure.longMs} ms on one of ${l.total} (${replayFigure.ratio}×)`,
  );
  let ceiling: CeilingFigure | null = null;
  if (recorded.length) {
    const window = { fromMs: loadedFromMs, seconds: loadedSeconds, runs };
    ceiling = await measureCeiling(recorded, window, counts, log);
    if (process.env.BENCH_FANOUT_CEILING_BESIDE_RUNS === '1') {
      running = true;
      runs = 0;
      drivers = drive();
      const beside = await measureCeiling(recorded, window, counts, (line) => log(`${line} [again, agentplane's runs beside it]`));
      running = false;
      await Promise.all(drivers);
      ceiling.besideRuns = {
        okP99Ms: beside.loaded.okP99Ms,
        okSamples: beside.loaded.okSamples,
        delivery: beside.delivery,
        runs,
        lostEvents: beside.lostEvents,
        failedSubscribers: beside.failedSubscribers,
      };
      log(
        `  (extra, not the target's) the ceiling with ${runs} of agentplane's runs beside it: /ok p99 ${beside.loaded.okP99Ms} ms; agentplane's loaded /ok p99 is ${r2(loaded.okP99Ms / beside.loaded.okP99Ms)}× that`,
      );
    }
    if (process.env.BENCH_FANOUT_CEILING_BESIDE_GRAPH === '1') {
      const pacer = await startPacedGraph(counts.threads, window.runs / window.seconds / counts.threads, historyRuns);
      let beside: CeilingFigure;
      let ran: { runs: number; seconds: number; cpuMs: number };
      try {
        beside = await measureCeiling(recorded, window, counts, (line) => log(`${line} [again, LangGraph alone's runs beside it]`));
      } finally {
        // its runs never outlast the figure, whatever became of it
        ran = await pacer.stop();
      }
      ceiling.besideGraph = {
        okP99Ms: beside.loaded.okP99Ms,
        okSamples: beside.loaded.okSamples,
        delivery: beside.delivery,
        runs: ran.runs,
        runsPerSecond: r2(ran.runs / ran.seconds),
        cpuMsPerRun: r2(ran.cpuMs / Math.max(1, ran.runs)),
        lostEvents: beside.lostEvents,
        failedSubscribers: beside.failedSubscribers,
      };
      log(
        `  (extra, not the target's) the ceiling with LangGraph alone running the graph beside it (${ran.runs} runs, ${ceiling.besideGraph.runsPerSecond} runs/s against agentplane's ${r2(window.runs / window.seconds)}, ${ceiling.besideGraph.cpuMsPerRun} ms of CPU a run): /ok p99 ${beside.loaded.okP99Ms} ms (${r2(beside.loaded.okP99Ms / ceiling.loaded.okP99Ms)}× the ceiling's alone); agentplane's loaded /ok p99 is ${r2(loaded.okP99Ms / beside.loaded.okP99Ms)}× that`,
      );
    }
    // BENCH_FANOUT_CEILING_FULL=drivers,graph: the ceiling's window again with the runs' requests paced at
    // agentplane's rate and answered by the broadcaster (`drivers`), and with LangGraph alone's runs beside too (`graph`).
    // BENCH_FANOUT_CEILING_ENGINE=<µs a run>:<niceness>,…: the `graph` variant with a thread of the broadcaster's spending
    // that much CPU a run at that niceness (what an engine thread beside the request loop would add).
    const variants: { name: string; graph: boolean; engine?: { usPerRun: number; nice: number } }[] = [
      ...(process.env.BENCH_FANOUT_CEILING_FULL ?? '')
        .split(',')
        .filter((v) => v === 'drivers' || v === 'graph')
        .map((v) => ({ name: v, graph: v === 'graph' })),
      ...(process.env.BENCH_FANOUT_CEILING_ENGINE ?? '')
        .split(',')
        .filter(Boolean)
        .map((e) => {
          const [usPerRun, nice = 0] = e.split(':').map(Number);
          return { name: `engine ${usPerRun} µs a run at nice ${nice}`, graph: true, engine: { usPerRun: usPerRun!, nice } };
        }),
    ];
    const rate = window.runs / window.seconds / counts.threads;
    for (const { name: variant, graph, engine } of variants) {
      let pacedRuns = 0;
      let ran = { runs: 0, seconds: 0, cpuMs: 0 };
      const full = await measureCeiling(
        recorded,
        window,
        counts,
        (line) => log(`${line} [again, ${variant}: paced drivers answered by it${graph ? ', LangGraph alone beside' : ''}]`),
        async (bt, ids) => {
          const pacer = graph ? await startPacedGraph(counts.threads, rate, historyRuns) : undefined;
          let going = true;
          const every = 1000 / rate;
          const began = performance.now();
          const loops = ids.map(async (id, i) => {
            let next = began + (every * i) / ids.length;
            while (going) {
              const wait = next - performance.now();
              if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
              if (!going) break;
              if (await protocolRun(bt, id)) pacedRuns += 1;
              next += every;
            }
          });
          return async () => {
            going = false;
            // LangGraph alone stops first, whatever becomes of a driver's request: left running it grows its threads for ever
            if (pacer) ran = await pacer.stop();
            await Promise.race([Promise.all(loops), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
          };
        },
        engine,
      );
      log(
        `  (extra) the full ceiling (${variant}): ${pacedRuns} paced driver runs answered by the broadcaster, LangGraph alone ${ran.runs} runs (${r2(ran.cpuMs / Math.max(1, ran.runs))} ms CPU a run) beside: /ok p99 ${full.loaded.okP99Ms} ms (${r2(full.loaded.okP99Ms / ceiling.loaded.okP99Ms)}× the bare ceiling's); agentplane's loaded /ok p99 is ${r2(loaded.okP99Ms / full.loaded.okP99Ms)}× that; delivery p99 ${full.delivery?.p99Ms} ms`,
      );
    }
    log(
      `  the same load: the window's events come to ${ceiling.windowDeliveries} over the subscribers; the ceiling's received ${ceiling.eventsReceived}, agentplane's ${eventsReceived} (${eventsReceived - (ceiling.windowDeliveries ?? 0)} more: the history replayed to each as it subscribed)`,
    );
  }
  return {
    subscribers: { sse: half, websocket: counts.subscribers - half },
    threads: counts.threads,
    runs,
    eventsReceived,
    failedSubscribers,
    lostEvents,
    loadedSeconds,
    idle,
    runsAlone,
    loaded,
    okP99Ratio: r2(loaded.okP99Ms / idle.okP99Ms),
    firstEventRatio: r2(loaded.firstEventMs / idle.firstEventMs),
    delivery,
    replay: replayFigure,
    ceiling,
    ...(ceiling && { okP99VsCeiling: r2(loaded.okP99Ms / ceiling.loaded.okP99Ms) }),
  };
}

/** The JSON of the thread's last run's events (from its root `running` on), as a subscriber to CHANNELS reads them. */
export async function lastRunEvents(t: FanoutTarget, thread: string): Promise<string[]> {
  const abort = new AbortController();
  const events: (ThreadEvent & { seq: number })[] = [];
  try {
    const res = await json(t, `/threads/${thread}/stream/events`, { channels: CHANNELS, since: 0 }, abort.signal);
    for await (const e of threadEvents(res, 500)) events.push(e);
  } finally {
    abort.abort();
  }
  const start = events.findLastIndex((e) => e.method === 'lifecycle' && (e.params?.namespace ?? []).length === 0 && e.params?.data?.event === 'running');
  return start < 0 ? [] : events.slice(start).map((e) => JSON.stringify(e));
}

/** LangGraph alone running the bench graph on `threads` threads at `rate` runs/s a thread (graphAlonePaced.ts), once each holds `history` runs; `stop()` says what it ran. */
async function startPacedGraph(threads: number, rate: number, history: number): Promise<{ stop(): Promise<{ runs: number; seconds: number; cpuMs: number }> }> {
  const graph = writeBenchGraph(path.join(ROOT, '.bench/graph'));
  const runner = path.join(ROOT, 'scripts/bench/graphAlonePaced.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', runner, graph, String(threads), String(rate), String(history)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  const paced = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('paced\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`graphAlonePaced.ts exited (${code}) before its runs began`)));
  });
  await paced;
  return {
    async stop() {
      const exited = once(child, 'exit');
      child.stdin.end();
      await exited;
      return JSON.parse(out.trim().split('\n').at(-1)!) as { runs: number; seconds: number; cpuMs: number };
    },
  };
}

/** The bare node:http broadcaster (fanoutCeiling.ts) in a process of its own, answering `/ok`: the ceiling of the fan-out benches. */
export async function startBroadcaster(name = 'fanout-ceiling') {
  const port = await freePort();
  return startChild({
    name,
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'scripts/bench/fanoutCeiling.ts'), String(port)],
    cwd: ROOT,
    port,
    probePath: '/ok',
  });
}

/**
 * The ceiling (fanoutCeiling.ts): the same subscribers on a bare node:http broadcaster playing,
 * on as many threads, each of agentplane's threads' events of its loaded window at their times in
 * it (fanoutTimeline.ts), for as long; `/ok` p99 idle, and under them from 1 s in, taken as
 * agentplane's are; the delivery and losses as its subscribers saw them.
 */
async function measureCeiling(
  recorded: string[][],
  window: { fromMs: number; seconds: number; runs: number },
  counts: { subscribers: number; threads: number },
  log: (s: string) => void,
  /** Started once the window plays, stopped after it: more load beside the ceiling (the full ceiling's). */
  beside?: (t: FanoutTarget, threads: string[]) => Promise<() => Promise<void>>,
  /** A thread of the broadcaster's spending this much CPU a run of the window, at this niceness (fanoutCeiling.ts `engine`). */
  engine?: { usPerRun: number; nice: number },
): Promise<CeilingFigure> {
  const child = await startBroadcaster();
  try {
    const t: FanoutTarget = { url: child.url, headers: {}, assistant: '' };
    await okP99(t);
    const idle = { okP99Ms: await okP99(t) };
    const threads = Array.from({ length: counts.threads }, () => randomUUID());
    const held = await openSubscribers({ target: t, threads, subscribers: counts.subscribers });
    const timeline = recorded.map((events) => windowClumps(events, window.fromMs));
    const played = timelineSize(timeline);
    const control = (what: string, body: unknown) => json(t, `/bench/${what}`, body).then((res) => res.arrayBuffer());
    // the engine's CPU a run spread over the run's events as they are played
    const engineAt = engine && { usPerEvent: Math.round((engine.usPerRun * window.runs) / Math.max(1, played.events)), nice: engine.nice };
    await control('start', {
      threads: threads.map((id, i) => ({ id, events: recorded[i] ?? [] })),
      fromMs: window.fromMs,
      answers: lastAnswers,
      engine: engineAt,
    });
    const stopBeside = beside ? await beside(t, threads) : undefined;
    // its clock: the clumps are timed from its answer (the recorded window is large to send and parse)
    const began = performance.now();
    // as agentplane's: sampled from 1 s into the window, then the window played to its end
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const loaded = { okP99Ms: await okP99(t), okSamples: sampled.ok };
    const rest = Math.max(window.seconds * 1000, played.lastMs + 100) - (performance.now() - began);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, rest)));
    await control('stop', {});
    await stopBeside?.();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const closed = await held.close();
    const figure: CeilingFigure = {
      eventsPerRun: r2(played.events / Math.max(1, window.runs)),
      runsPerSecondPerThread: r2(window.runs / window.seconds / counts.threads),
      eventsPlayed: played.events,
      playedSeconds: r2((performance.now() - began) / 1000),
      windowDeliveries: windowDeliveries(timeline, held.opened),
      opened: held.opened,
      failedSubscribers: closed.failed,
      eventsReceived: closed.eventsReceived,
      lostEvents: closed.lost,
      idle,
      loaded,
      delivery: closed.delivery,
    };
    log(
      `  ceiling (bare node:http, agentplane's ${played.events} events of its loaded window on ${counts.threads} threads at their times, ${figure.playedSeconds} s, ${held.opened} subscribers): /ok p99 ${idle.okP99Ms} ms idle, ${loaded.okP99Ms} ms under them; delivery p50 ${closed.delivery?.p50Ms} ms, p99 ${closed.delivery?.p99Ms} ms; ${closed.eventsReceived} events received, ${closed.lost} lost, ${closed.failed} failed`,
    );
    return figure;
  } finally {
    await child.stop();
  }
}

const ms = (x: number) => `${x} ms`;

/** The report's section (docs/benchmarks.md). */
export function fanoutSection(f: FanoutFigure | null | undefined): string[] {
  if (!f) return ['## Fan-out and replay', '', 'Not measured (see below).', ''];
  const n = f.subscribers.sse + f.subscribers.websocket;
  return [
    '## Fan-out and replay',
    '',
    `${n.toLocaleString('en-US')} subscribers (${f.subscribers.sse} protocol v2 over SSE, ${f.subscribers.websocket} over its WebSocket) on ${f.threads} threads, on which echo runs started with \`run.start\` follow one another (${f.runs} runs, ${f.eventsReceived.toLocaleString('en-US')} events delivered, ${f.failedSubscribers} subscribers failed).`,
    '',
    '| | idle | runs, no subscriber | runs and subscribers | ÷ idle |',
    '|---|--:|--:|--:|--:|',
    `| \`GET /ok\` p99 | ${ms(f.idle.okP99Ms)} | ${ms(f.runsAlone.okP99Ms)} | ${ms(f.loaded.okP99Ms)} | ${f.okP99Ratio}× |`,
    `| a new run's first event (median) | ${ms(f.idle.firstEventMs)} | ${ms(f.runsAlone.firstEventMs)} | ${ms(f.loaded.firstEventMs)} | ${f.firstEventRatio}× |`,
    ...(f.ceiling
      ? [
          `| the same subscribers on a bare \`node:http\` broadcaster (the ceiling), \`GET /ok\` p99 | ${ms(f.ceiling.idle.okP99Ms)} | | ${ms(f.ceiling.loaded.okP99Ms)} | ${r2(f.ceiling.loaded.okP99Ms / f.ceiling.idle.okP99Ms)}× |`,
          '',
          `The ceiling (issue 87, \`scripts/bench/fanoutCeiling.ts\`), measured right after agentplane in the same run: a bare \`node:http\` server holding the same ${f.ceiling.opened.toLocaleString('en-US')} subscribers (SSE and WebSocket) on ${f.threads} threads, ${f.ceiling.eventsPlayed !== undefined ? `playing on each thread the events agentplane's matching thread sent under its subscribers (${f.ceiling.eventsPlayed.toLocaleString('en-US')} in all, ${f.ceiling.eventsPerRun} a run at ${f.ceiling.runsPerSecondPerThread} runs/s a thread), each clump (those agentplane made in the same ms) at its time in agentplane's loaded window, for as long (${f.ceiling.playedSeconds} s), the same frames stamped when sent` : `playing on each thread the ${f.ceiling.eventsPerRun} events of one of agentplane's runs as its subscribers read them, ${f.ceiling.runsPerSecondPerThread} runs/s a thread, for 1 s and its own \`/ok\` sampling only (before 2026-12-02: not agentplane's load)`}, encoded once and written to each subscriber in one write. agentplane's loaded \`/ok\` p99 is ${f.okP99VsCeiling}× the ceiling's; the ceiling's delivery p50 ${ms(f.ceiling.delivery?.p50Ms ?? NaN)}, p99 ${ms(f.ceiling.delivery?.p99Ms ?? NaN)}; ${f.ceiling.eventsReceived.toLocaleString('en-US')} events delivered, ${f.ceiling.lostEvents} lost, ${f.ceiling.failedSubscribers} subscribers failed. The ceiling's figures are taken with agentplane's runs stopped: no run's CPU on the cores beside it, and no run's requests in the loop that sends the \`/ok\` samples.`,
          ...(f.ceiling.besideRuns
            ? [
                '',
                `Extra, not the target's figure (\`BENCH_FANOUT_CEILING_BESIDE_RUNS=1\`): the ceiling's window played again with agentplane's runs going on its threads beside it (${f.ceiling.besideRuns.runs} runs, no subscriber on agentplane): the ceiling's \`/ok\` p99 ${ms(f.ceiling.besideRuns.okP99Ms)}, delivery p99 ${ms(f.ceiling.besideRuns.delivery?.p99Ms ?? NaN)}; agentplane's loaded \`/ok\` p99 is ${r2(f.loaded.okP99Ms / f.ceiling.besideRuns.okP99Ms)}× that.`,
              ]
            : []),
          ...(f.ceiling.besideGraph
            ? [
                '',
                `Extra, not the target's figure (\`BENCH_FANOUT_CEILING_BESIDE_GRAPH=1\`): the ceiling's window played again while LangGraph alone (\`scripts/bench/graphAlonePaced.ts\`: no server, its in-memory checkpointer, at the run workers' niceness) ran the same graph on ${f.threads} threads at agentplane's loaded rate (${f.ceiling.besideGraph.runs} runs, ${f.ceiling.besideGraph.runsPerSecond} runs/s, ${ms(f.ceiling.besideGraph.cpuMsPerRun)} of CPU a run): LangGraph's own work on those runs, without a server's. The ceiling's \`/ok\` p99 then ${ms(f.ceiling.besideGraph.okP99Ms)} (${r2(f.ceiling.besideGraph.okP99Ms / f.ceiling.loaded.okP99Ms)}× its own without them), delivery p99 ${ms(f.ceiling.besideGraph.delivery?.p99Ms ?? NaN)}; agentplane's loaded \`/ok\` p99 is ${r2(f.loaded.okP99Ms / f.ceiling.besideGraph.okP99Ms)}× that.`,
              ]
            : []),
        ]
      : []),
    '',
    ...(f.lostEvents !== undefined ? [`Events lost (a subscriber short of what the one that received most on its thread did): ${f.lostEvents}.`, ''] : []),
    ...(f.delivery
      ? [
          `An event's delivery under the subscribers (issue 67): the subscriber's clock when it read a \`values\` or \`messages\` event minus the server's \`params.timestamp\` on it (when the server made the event, before writing it to the log; one machine's clock, ms), at every ${DELIVERY_SAMPLE_EVERY}th subscriber (${f.delivery.subscribers} read events, ${f.delivery.events.toLocaleString('en-US')} events): p50 ${ms(f.delivery.p50Ms)}, p99 ${ms(f.delivery.p99Ms)}.`,
          '',
        ]
      : []),
    `Replay: the last run's ${f.replay.returned} events asked \`since\` the event before them took ${ms(f.replay.shortMs)} on a thread of ${f.replay.shortHistoryEvents} events and ${ms(f.replay.longMs)} on one of ${f.replay.longHistoryEvents} (${f.replay.ratio}×, medians).`,
    '',
  ];
}
