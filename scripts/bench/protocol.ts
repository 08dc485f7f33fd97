// The `protocol` phase's client: the same echo runs over protocol v2 (a `run.start` command,
// then the thread's event stream until the run's root lifecycle ends) and over run streams
// (`POST /threads/{id}/runs/stream`), on every server given, all four in each round, the order
// flipping every round, so each ratio compares figures of the same minute of a shared machine.
import { randomUUID } from 'node:crypto';
import { expectStatus, request } from './agentplane.ts';
import { median, quantile, type ProtocolFigure, type ProtocolRound, type ProtocolServer, type Transport } from './protocolFigures.ts';

export interface ProtocolTarget {
  server: ProtocolServer;
  url: string;
  headers: Record<string, string>;
  assistant: string;
}

export const PROTOCOL_ROUNDS = 5;
export const PROTOCOL_THREADS = 16;
export const PROTOCOL_RUNS_PER_THREAD = 3;
export const PROTOCOL_LATENCY_RUNS = 10;
/** What `useStream` reads on each transport: state values and messages. */
const CHANNELS = ['lifecycle', 'values', 'messages'];
const STREAM_MODE = ['values', 'messages-tuple'];
/** An echo run takes milliseconds: one still going after this is a fault, not a figure. */
const RUN_TIMEOUT_MS = 30_000;

interface Frame {
  event: string;
  data: string;
}

/** The SSE frames of a response as they arrive; the caller stops when it has what it needs. */
async function* frames(res: Response): AsyncGenerator<Frame> {
  if (res.status !== 200) throw new Error(`${res.url}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n/g, '\n');
      let at: number;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const lines = buffer.slice(0, at).split('\n');
        buffer = buffer.slice(at + 2);
        const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart());
        if (!data.length) continue;
        const event =
          lines
            .find((l) => l.startsWith('event:'))
            ?.slice(6)
            .trim() ?? 'message';
        yield { event, data: data.join('\n') };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const post = (t: ProtocolTarget, pathname: string, json: unknown, signal?: AbortSignal) =>
  fetch(t.url + pathname, { method: 'POST', headers: { ...t.headers, 'content-type': 'application/json' }, body: JSON.stringify(json), signal });

const input = () => ({ messages: [{ role: 'user', content: `hello ${randomUUID()}` }] });

/** A client on one thread: runs one after another over a transport, each returning its first-event latency (ms) and whether it completed. */
interface Client {
  run(): Promise<{ firstEventMs: number; completed: boolean }>;
}

let commandId = 0;

async function newClient(t: ProtocolTarget, transport: Transport): Promise<Client> {
  const thread = await request(`${t.url}/threads`, { method: 'POST', headers: t.headers, json: {} });
  expectStatus('POST /threads', thread, 200, 201);
  const threadId: string = thread.body.thread_id;
  if (transport === 'run-stream')
    return {
      async run() {
        const sent = performance.now();
        let firstEventMs = -1;
        let completed = true;
        const body = { assistant_id: t.assistant, input: input(), stream_mode: STREAM_MODE };
        for await (const frame of frames(await post(t, `/threads/${threadId}/runs/stream`, body, AbortSignal.timeout(RUN_TIMEOUT_MS)))) {
          if (firstEventMs < 0) firstEventMs = performance.now() - sent;
          if (frame.event === 'error') completed = false;
        }
        return { firstEventMs, completed: completed && firstEventMs >= 0 };
      },
    };
  // the thread's events after the last one seen: the subscription opens before the command is
  // sent (as the SDK's thread stream does), and `since` makes sure it misses nothing of the run
  let since = 0;
  return {
    async run() {
      // a failed command (or a run that never ends) closes the stream rather than wait on it forever
      const abort = new AbortController();
      const signal = AbortSignal.any([abort.signal, AbortSignal.timeout(RUN_TIMEOUT_MS)]);
      const stream = frames(await post(t, `/threads/${threadId}/stream/events`, { channels: CHANNELS, since }, signal));
      const sent = performance.now();
      let failure: Error | undefined;
      const command = post(t, `/threads/${threadId}/commands`, {
        id: (commandId += 1),
        method: 'run.start',
        params: { assistant_id: t.assistant, input: input() },
      })
        .then(async (res) => {
          const body = await res.text();
          if (res.status !== 200 || JSON.parse(body).type !== 'success') throw new Error(`run.start: HTTP ${res.status} ${body.slice(0, 300)}`);
        })
        .catch((err: Error) => {
          failure = err;
          abort.abort();
        });
      let firstEventMs = -1;
      let completed = false;
      try {
        for await (const frame of stream) {
          const event = JSON.parse(frame.data) as { type?: string; seq?: number; method: string; params: { namespace: string[]; data: { event?: string } } };
          if (event.type !== 'event' || typeof event.seq !== 'number' || event.seq <= since) continue;
          if (firstEventMs < 0) firstEventMs = performance.now() - sent;
          since = event.seq;
          if (event.method === 'lifecycle' && event.params.namespace.length === 0 && event.params.data.event !== 'running') {
            completed = event.params.data.event === 'completed';
            break;
          }
        }
      } catch (err) {
        // the stream closed because the command failed: that failure is the one to report
        if (!failure) throw err;
      }
      await command;
      if (failure) throw failure;
      return { firstEventMs, completed };
    },
  };
}

interface Sample {
  runs: number;
  seconds: number;
  latencies: number[];
  failed: number;
}

/** One round on a target and transport: the throughput batch, then the latency runs one at a time. */
async function measureOnce(t: ProtocolTarget, transport: Transport, threads: number, perThread: number, latencyRuns: number): Promise<Sample> {
  let failed = 0;
  const clients = await Promise.all(Array.from({ length: threads }, () => newClient(t, transport)));
  const started = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = 0; i < perThread; i += 1) if (!(await c.run()).completed) failed += 1;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const one = await newClient(t, transport);
  const latencies: number[] = [];
  for (let i = 0; i < latencyRuns; i += 1) {
    const r = await one.run();
    if (!r.completed) failed += 1;
    latencies.push(r.firstEventMs);
  }
  return { runs: threads * perThread, seconds, latencies, failed };
}

const r1 = (x: number) => Math.round(x * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;

/** An untimed round on each, then PROTOCOL_ROUNDS rounds of all four combinations, the order flipped each round. */
export async function measureProtocol(targets: ProtocolTarget[], log: (s: string) => void): Promise<ProtocolFigure[]> {
  const combos = targets.flatMap((t) =>
    (['protocol-v2', 'run-stream'] as const).map((transport) => ({ t, transport, rounds: [] as ProtocolRound[], latencies: [] as number[], failed: 0 })),
  );
  for (const c of combos) await measureOnce(c.t, c.transport, PROTOCOL_THREADS, 1, 3);
  for (let round = 0; round < PROTOCOL_ROUNDS; round += 1) {
    for (const c of round % 2 ? [...combos].reverse() : combos) {
      const s = await measureOnce(c.t, c.transport, PROTOCOL_THREADS, PROTOCOL_RUNS_PER_THREAD, PROTOCOL_LATENCY_RUNS);
      const r: ProtocolRound = {
        runsPerSecond: r1(s.runs / s.seconds),
        firstEventP50Ms: r2(median(s.latencies)),
        firstEventP95Ms: r2(quantile(s.latencies, 0.95)),
      };
      c.rounds.push(r);
      c.failed += s.failed;
      c.latencies.push(...s.latencies);
      log(
        `    ${c.t.server.padEnd(10)} ${c.transport.padEnd(11)} round ${round + 1}: ${r.runsPerSecond} runs/s, first event p50 ${r.firstEventP50Ms} ms p95 ${r.firstEventP95Ms} ms${s.failed ? `, ${s.failed} not completed` : ''}`,
      );
    }
  }
  return combos.map((c) => {
    const figure: ProtocolFigure = {
      server: c.t.server,
      transport: c.transport,
      graph: c.t.assistant,
      threads: PROTOCOL_THREADS,
      runsPerThread: PROTOCOL_RUNS_PER_THREAD,
      latencyRuns: PROTOCOL_LATENCY_RUNS,
      runsPerSecond: r1(median(c.rounds.map((r) => r.runsPerSecond))),
      firstEventP50Ms: r2(median(c.latencies)),
      firstEventP95Ms: r2(quantile(c.latencies, 0.95)),
      failed: c.failed,
      rounds: c.rounds,
    };
    log(
      `  ${c.t.server.padEnd(10)} ${c.transport.padEnd(11)}: median of ${c.rounds.length} rounds ${figure.runsPerSecond} runs/s, first event p50 ${figure.firstEventP50Ms} ms p95 ${figure.firstEventP95Ms} ms (not completed: ${figure.failed})`,
    );
    return figure;
  });
}
