// The `fanout` phase (issue 57): many clients reading running threads at once, as a dashboard
// or a team's useStream pages do. Half the subscribers hold protocol v2 over SSE
// (`POST /threads/{id}/stream/events`), half over its WebSocket (`subscription.subscribe`), spread
// over a few threads on which echo runs, started as protocol v2 clients start them (`run.start`),
// follow one another for the whole measurement. Beside
// them, and once before them on the idle server, the two figures a user feels: `/ok`'s p99 and
// a new run's first event (a run stream on a thread of its own). Then the cost of a replay:
// the last run's events asked `since` the event before it, on a thread with a short history
// and on one with a long one; a replay that costs what it returns takes the same time on both.
import { randomUUID } from 'node:crypto';
import { expectStatus, request } from './agentplane.ts';
import { CHANNELS, json, type FanoutTarget } from './fanoutClients.ts';
import { DELIVERY_SAMPLE_EVERY, openSubscribers, type DeliveryFigure } from './fanoutSubscribers.ts';

export { DELIVERY_SAMPLE_EVERY, type DeliveryFigure };

export interface FanoutFigure {
  subscribers: { sse: number; websocket: number };
  threads: number;
  /** Runs the threads ran while the subscribers read them, and events the subscribers received. */
  runs: number;
  eventsReceived: number;
  /** Subscribers that did not open, or closed before the end. */
  failedSubscribers: number;
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
/** How many samples the last figures were made of. */
const sampled = { ok: 0, firstEvent: 0 };
const r2 = (x: number) => Math.round(x * 100) / 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

const input = () => ({ messages: [{ role: 'user', content: `fan-out ${randomUUID()}` }] });

let commandId = 0;

/** One run on the thread as a protocol v2 client starts it (`run.start`), waited for to its end: whether it succeeded. */
async function protocolRun(t: FanoutTarget, thread: string): Promise<boolean> {
  const res = await json(t, `/threads/${thread}/commands`, {
    id: (commandId += 1),
    method: 'run.start',
    params: { assistant_id: t.assistant, input: input() },
  });
  const answer = (await res.json()) as { type?: string; result?: { run_id?: string } };
  if (res.status !== 200 || answer.type !== 'success' || !answer.result?.run_id)
    throw new Error(`run.start: HTTP ${res.status} ${JSON.stringify(answer).slice(0, 200)}`);
  const joined = await fetch(`${t.url}/threads/${thread}/runs/${answer.result.run_id}/join`, { headers: t.headers });
  await joined.arrayBuffer();
  return joined.status === 200;
}

async function newThread(t: FanoutTarget): Promise<string> {
  const res = await request(`${t.url}/threads`, { method: 'POST', headers: t.headers, json: {} });
  expectStatus('POST /threads', res, 200, 201);
  return res.body.thread_id as string;
}

/** `/ok` one request after another; its p99 in ms. */
async function okP99(t: FanoutTarget): Promise<number> {
  const times: number[] = [];
  const until = performance.now() + SAMPLING_MS;
  for (let i = 0; i < OK_SAMPLES && (i < MIN_SAMPLES || performance.now() < until); i += 1) {
    const started = performance.now();
    const res = await fetch(`${t.url}/ok`, { headers: t.headers });
    await res.arrayBuffer();
    times.push(performance.now() - started);
  }
  sampled.ok = times.length;
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
  counts: { subscribers: number; threads: number; shortHistory: number; longHistory: number },
  log: (s: string) => void,
): Promise<FanoutFigure> {
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
  const runsAlone = { okP99Ms: await okP99(t), firstEventMs: await firstEvent(t) };
  running = false;
  await Promise.all(drivers);
  log(`  runs on ${threads.length} threads, no subscriber: /ok p99 ${runsAlone.okP99Ms} ms, first event ${runsAlone.firstEventMs} ms`);

  // the subscribers live in a worker thread of their own (fanoutSubscribers.ts)
  const held = await openSubscribers({ target: t, threads, subscribers: counts.subscribers });
  let failedSubscribers = held.failed;
  const half = Math.floor(counts.subscribers / 2);
  log(`  ${held.opened} subscribers open (${failedSubscribers} failed to open) on ${threads.length} threads`);

  running = true;
  runs = 0;
  drivers = drive();
  // the runs under way before the figures are taken
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const loadedOk = await okP99(t);
  const okSamples = sampled.ok;
  const loaded = { okP99Ms: loadedOk, firstEventMs: await firstEvent(t), okSamples, firstEventSamples: sampled.firstEvent };
  running = false;
  await Promise.all(drivers);
  // the last events reach the subscribers
  await new Promise((resolve) => setTimeout(resolve, 500));
  const closed = await held.close();
  const eventsReceived = closed.eventsReceived;
  failedSubscribers = closed.failed;
  const delivery = closed.delivery;
  log(
    delivery
      ? `  delivery (made → read) at ${delivery.subscribers} sampled subscribers, ${delivery.events} events: p50 ${delivery.p50Ms} ms, p99 ${delivery.p99Ms} ms (the subscribers' thread ${Math.round((delivery.clientBusy ?? NaN) * 100)}% busy)`
      : '  delivery: no sampled subscriber read an event',
  );
  log(
    `  under ${held.opened} subscribers: /ok p99 ${loaded.okP99Ms} ms (${okSamples} requests), first event ${loaded.firstEventMs} ms (${loaded.firstEventSamples} runs); ${runs} runs, ${eventsReceived} events received`,
  );

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
  return {
    subscribers: { sse: half, websocket: counts.subscribers - half },
    threads: counts.threads,
    runs,
    eventsReceived,
    failedSubscribers,
    idle,
    runsAlone,
    loaded,
    okP99Ratio: r2(loaded.okP99Ms / idle.okP99Ms),
    firstEventRatio: r2(loaded.firstEventMs / idle.firstEventMs),
    delivery,
    replay: replayFigure,
  };
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
    '',
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
