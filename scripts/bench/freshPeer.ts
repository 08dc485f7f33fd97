// The peer comparison as a user measures it: every server (agentplane, the `--baseline` tree,
// the upstream dev server) started FRESH for each round, given the same untimed warm-up, then
// driven through the LangGraph JS SDK (the client users run): 200 runs on one thread, then
// 1,000 runs over 100 threads. Each round also starts every server once more and runs the same
// two scenarios with no warm-up at all (what a user's first minute sees). Rounds alternate the
// servers' order. A ratio is read round by round (the two servers of a round share its
// moments of the shared machine): the median of the rounds' ratios, with their range. Each
// scenario is driven twice, by the SDK's client as it comes (no limit on requests at once) and
// by one with `maxConcurrency: 64` (a setting users take): both are how users run it, and the
// report judges the lower ratio of the two (issue 86).
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import type { Child } from './proc.ts';

export const FRESH_ONE_THREAD_RUNS = 200;
export const FRESH_THREADS = 100;
export const FRESH_RUNS_PER_THREAD = 10;
/** The untimed warm-up of a warm round, as [threads, runs per thread]: the same for every server. */
export const FRESH_WARM_UP: readonly [number, number][] = [
  [4, 5],
  [1, 50],
  [FRESH_THREADS, 5],
];
export const FRESH_ROUNDS = Number(process.env.BENCH_FRESH_ROUNDS ?? 5);

/**
 * `graph-alone`: the same graph run by LangGraph alone in a fresh process of its own (no server, its MemorySaver; graphAlone.ts), the same warm-up and counts.
 * `runs-ceiling`: the least server for these runs (runsCeilingServer.ts: node:http answering the SDK's few requests, LangGraph alone on worker threads, every record and checkpoint journaled).
 */
export type FreshServer = 'agentplane' | 'baseline' | 'peer' | 'graph-alone' | 'runs-ceiling';
export type FreshScenario = 'one thread' | '100 threads';
export type FreshStart = 'warm-up' | 'no warm-up';
/** The SDK client driving the runs: its defaults, or `callerOptions.maxConcurrency: 64`. */
export type FreshClient = 'default client' | 'maxConcurrency 64';
export const FRESH_CLIENTS: readonly FreshClient[] = ['default client', 'maxConcurrency 64'];

export interface FreshFigure {
  server: FreshServer;
  scenario: FreshScenario;
  start: FreshStart;
  /** Older reports have none (the SDK's default client). */
  client?: FreshClient;
  /** runs/s of each round, in order. */
  rounds: number[];
  /** The median of the rounds. */
  runsPerSecond: number;
  /** Runs whose final status was not success, over every round (should be 0). */
  failed: number;
}

export interface FreshRatio {
  scenario: FreshScenario;
  start: FreshStart;
  /** Older reports have none (the SDK's default client). */
  client?: FreshClient;
  /** `of` ÷ the other server, the median of the per-round ratios. */
  versus: Exclude<FreshServer, 'agentplane'>;
  /** The server divided: agentplane when absent; the runs ceiling against the upstream server (what any server can reach). */
  of?: 'runs-ceiling';
  ratio: number;
  min: number;
  max: number;
  rounds: number;
}

/** A server of the comparison: how to start one fresh, and the assistant its echo graph is. */
export interface FreshContender {
  server: FreshServer;
  assistant: string;
  start(): Promise<Child & { headers?: Record<string, string> }>;
}

/** A contender with no server (LangGraph alone): measures one fresh round itself, with the warm-up or none. */
export interface FreshProcess {
  server: FreshServer;
  measure(start: FreshStart): Promise<Record<FreshScenario, { runs: number; seconds: number; failed: number }>>;
}

/** The SDK's client as a user makes it, `client` saying its concurrency. */
export const sdk = (url: string, headers: Record<string, string> = {}, client: FreshClient = 'default client') =>
  // the SDK's own retries would hide a failing request inside a slower round
  new Client({ apiUrl: url, defaultHeaders: headers, callerOptions: { maxRetries: 0, ...(client === 'maxConcurrency 64' ? { maxConcurrency: 64 } : {}) } });

const input = () => ({ messages: [{ role: 'user', content: `hello ${randomUUID()}` }] });

/**
 * `perThread` runs created one after another (enqueued) on each of `threads` fresh threads, the
 * last joined; runs/s from the first create. `timed` hears when the timed part starts and ends
 * (freshThreadsCpu.ts reads each thread's CPU there).
 */
export async function sdkRuns(
  client: Client,
  assistant: string,
  threads: number,
  perThread: number,
  timed?: { started(): void; ended(): void },
): Promise<{ runs: number; seconds: number; failed: number }> {
  const ids = await Promise.all(Array.from({ length: threads }, async () => (await client.threads.create()).thread_id));
  timed?.started();
  const started = performance.now();
  await Promise.all(
    ids.map(async (threadId) => {
      let last = '';
      for (let i = 0; i < perThread; i += 1) last = (await client.runs.create(threadId, assistant, { input: input(), multitaskStrategy: 'enqueue' })).run_id;
      await client.runs.join(threadId, last);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  timed?.ended();
  let failed = 0;
  for (const threadId of ids) {
    const runs = await client.runs.list(threadId, { limit: perThread + 10 });
    failed += runs.filter((r) => r.status !== 'success').length + Math.max(0, perThread - runs.length);
  }
  return { runs: threads * perThread, seconds, failed };
}

const SCENARIOS: [FreshScenario, number, number][] = [
  ['one thread', 1, FRESH_ONE_THREAD_RUNS],
  ['100 threads', FRESH_THREADS, FRESH_RUNS_PER_THREAD],
];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;

/**
 * `rounds` rounds; in each, every contender (order flipped each round) is started fresh with
 * the warm-up and measured, then started fresh once more and measured without it.
 */
export async function measureFreshPeer(
  contenders: (FreshContender | FreshProcess)[],
  rounds: number,
  log: (s: string) => void,
): Promise<{ figures: FreshFigure[]; ratios: FreshRatio[] }> {
  // by round, so a ratio pairs the two servers' figures of the same round (a round a server failed has none)
  const samples = new Map<string, { byRound: Map<number, number>; failed: number }>();
  const key = (server: FreshServer, scenario: FreshScenario, start: FreshStart, client: FreshClient) => `${server}|${scenario}|${start}|${client}`;
  for (let round = 0; round < rounds; round += 1) {
    for (const start of ['warm-up', 'no warm-up'] as const) {
      for (const c of round % 2 ? [...contenders].reverse() : contenders) {
        let child: (Child & { headers?: Record<string, string> }) | undefined;
        try {
          if ('measure' in c) {
            const measured = await c.measure(start);
            const line: string[] = [];
            for (const [scenario] of SCENARIOS) {
              const r = measured[scenario];
              // no client: the same figure stands for both
              for (const client of FRESH_CLIENTS) {
                const got = samples.get(key(c.server, scenario, start, client)) ?? { byRound: new Map<number, number>(), failed: 0 };
                got.byRound.set(round, r1(r.runs / r.seconds));
                got.failed += r.failed;
                samples.set(key(c.server, scenario, start, client), got);
              }
              line.push(`${scenario} ${r1(r.runs / r.seconds)} runs/s`);
            }
            log(`    round ${round + 1} ${start.padEnd(10)} ${c.server.padEnd(10)} fresh: ${line.join(', ')}`);
            continue;
          }
          child = await c.start();
          if (start === 'warm-up')
            for (const [threads, perThread] of FRESH_WARM_UP) await sdkRuns(sdk(child.url, child.headers), c.assistant, threads, perThread);
          const line: string[] = [];
          for (const [scenario, threads, perThread] of SCENARIOS) {
            // the two clients in turn, their order flipped each round, each on threads of its own
            for (const client of round % 2 ? [...FRESH_CLIENTS].reverse() : FRESH_CLIENTS) {
              const r = await sdkRuns(sdk(child.url, child.headers, client), c.assistant, threads, perThread);
              const got = samples.get(key(c.server, scenario, start, client)) ?? { byRound: new Map<number, number>(), failed: 0 };
              got.byRound.set(round, r1(r.runs / r.seconds));
              got.failed += r.failed;
              samples.set(key(c.server, scenario, start, client), got);
              line.push(`${scenario} (${client}) ${r1(r.runs / r.seconds)} runs/s${r.failed ? ` (${r.failed} not success)` : ''}`);
            }
          }
          log(`    round ${round + 1} ${start.padEnd(10)} ${c.server.padEnd(10)} fresh: ${line.join(', ')}`);
        } catch (err) {
          // one failed start or round (a shared machine's bad minute) costs that round, not the phase
          log(`    round ${round + 1} ${start} ${c.server}: failed, not counted: ${(err as Error).message.split('\n')[0]}`);
        } finally {
          await child?.stop();
        }
      }
    }
  }
  const figures: FreshFigure[] = [];
  const ratios: FreshRatio[] = [];
  for (const start of ['warm-up', 'no warm-up'] as const) {
    for (const [scenario] of SCENARIOS) {
      for (const client of FRESH_CLIENTS) {
        for (const c of contenders) {
          const got = samples.get(key(c.server, scenario, start, client));
          if (!got) continue;
          const values = [...got.byRound.values()];
          figures.push({ server: c.server, scenario, start, client, rounds: values, runsPerSecond: r1(median(values)), failed: got.failed });
        }
        const ours = samples.get(key('agentplane', scenario, start, client));
        const least = samples.get(key('runs-ceiling', scenario, start, client));
        const pairs = [
          ...(['peer', 'baseline', 'graph-alone', 'runs-ceiling'] as const).map((versus) => ({ of: undefined, ours, versus })),
          { of: 'runs-ceiling' as const, ours: least, versus: 'peer' as const },
        ];
        for (const { of, ours, versus } of pairs) {
          const theirs = samples.get(key(versus, scenario, start, client));
          if (!ours || !theirs) continue;
          const perRound = [...ours.byRound].filter(([i]) => theirs.byRound.has(i)).map(([i, v]) => v / theirs.byRound.get(i)!);
          if (!perRound.length) continue;
          ratios.push({
            scenario,
            start,
            client,
            versus,
            ...(of ? { of } : {}),
            ratio: r2(median(perRound)),
            min: r2(Math.min(...perRound)),
            max: r2(Math.max(...perRound)),
            rounds: perRound.length,
          });
        }
      }
    }
  }
  for (const r of ratios)
    log(`  fresh start, ${r.start}, ${r.scenario}, ${r.client}: ${r.of ?? 'agentplane'} ÷ ${r.versus} ${r.ratio}× (rounds ${r.min}–${r.max})`);
  return { figures, ratios };
}

/** Of the ratios of one comparison (a scenario, a start, a server), the lower by client: the one the report judges. */
export function lowerRatio(ratios: FreshRatio[]): FreshRatio | undefined {
  return ratios.reduce<FreshRatio | undefined>((low, r) => (low === undefined || r.ratio < low.ratio ? r : low), undefined);
}
