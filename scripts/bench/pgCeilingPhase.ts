// The bench's `pgceiling` phase (BENCH_ONLY=pgceiling, or alone:
// `npx tsx scripts/bench/pgCeilingPhase.ts [rounds]`): issue 87's PostgreSQL target measured
// in one run. For each graph (the plain-function echo with AGENTPLANE_RUN_WORKERS=0, the
// LangGraph echo with the default run workers), in the same rounds, in turns (the order
// flipping every round), each after one untimed round of its own:
// - one agentplane replica on a fresh database of the bench's PostgreSQL cluster (default
//   settings: every commit flushed to disk), given the replicas workload (replicas.ts: 400
//   runs over 20 threads, multitask_strategy enqueue);
// - one agentplane process on the embedded store, the same workload;
// - the PostgreSQL ceiling (pgCeiling.ts): the statements one run of that replica's tree sent,
//   recorded, replayed for 400 runs over 20 threads by a minimal client against the same
//   PostgreSQL on the same cores.
// The target: the replica's runs/s ≥ the lower of 0.5× the embedded store's and 0.8× the
// ceiling's, each ratio the median of the rounds' ratios (a round's figures share its
// moment of the shared machine).
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import type { PgCeilingFigure } from './figures.ts';
import { BENCH_GRAPH, PLAIN_GRAPH } from './graph.ts';
import { countingPostgres, type StatementCounter } from './pgCount.ts';
import { recordRun, replayCeiling } from './pgCeiling.ts';
import { measureReplicas, REPLICA_ROUNDS } from './replicas.ts';

/** The goal: the replica at least this share of the embedded store's runs/s, or of the ceiling's, whichever is lower. */
export const EMBEDDED_SHARE = 0.5;
export const CEILING_SHARE = 0.8;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round3 = (x: number) => Math.round(x * 1000) / 1000;

export async function measurePgCeiling(options: {
  work: string;
  log: (line: string) => void;
  rounds?: number;
  counter?: StatementCounter;
}): Promise<PgCeilingFigure[]> {
  const { work, log } = options;
  const rounds = options.rounds ?? REPLICA_ROUNDS;
  const counter = options.counter ?? (await countingPostgres());
  const key = `bench-${randomUUID()}`;
  const tenant = randomUUID();
  const figures: PgCeilingFigure[] = [];
  try {
    for (const { graph, workers } of [
      { graph: PLAIN_GRAPH, workers: '0' },
      { graph: BENCH_GRAPH, workers: undefined },
    ]) {
      const name = graph === PLAIN_GRAPH ? 'plain' : 'langgraph';
      const recordUrl = await counter.freshDatabase();
      const recorded = await recordRun({ url: recordUrl, work, key, tenant, graph, workers });
      log(
        `  ${name}: one run recorded: ${recorded.create.length} statements to create it, 1 claim, ${recorded.execute.length} to execute it; replayed with ${recorded.madeIds.length} ids made anew per run`,
      );
      const processes: Agentplane[] = [];
      try {
        const start = async (store: 'postgres' | 'embedded') => {
          const ap = await startAgentplane({
            dataDir: path.join(work, `data-pgceiling-${name}-${store}`),
            workDir: path.join(work, `pgceiling-${name}-${store}`),
            key,
            tenant,
            env: { DATABASE_URL: store === 'postgres' ? await counter.freshDatabase() : undefined, AGENTPLANE_RUN_WORKERS: workers },
          });
          processes.push(ap);
          return ap;
        };
        const onPostgres = await start('postgres');
        const embedded = await start('embedded');
        const contenders = [
          { what: 'postgres' as const, measure: (quiet: boolean) => measureReplicas([onPostgres], graph, workers ?? 'default', quiet ? () => undefined : log) },
          {
            what: 'embedded' as const,
            measure: (quiet: boolean) =>
              measureReplicas([embedded], graph, workers ?? 'default', quiet ? () => undefined : log, undefined, { store: 'embedded' }),
          },
          {
            what: 'ceiling' as const,
            measure: async (quiet: boolean) => {
              const figure = await replayCeiling(recordUrl, recorded);
              if (!quiet) log(`  PostgreSQL ceiling: ${figure.runs} runs in ${figure.seconds} s = ${figure.runsPerSecond} runs/s (${figure.claims} claims)`);
              return figure;
            },
          },
        ];
        for (const c of contenders) await c.measure(true);
        const measured: Record<'postgres' | 'embedded' | 'ceiling', number[]> = { postgres: [], embedded: [], ceiling: [] };
        for (let r = 0; r < rounds; r += 1) {
          for (const c of r % 2 ? [...contenders].reverse() : contenders) measured[c.what].push((await c.measure(false)).runsPerSecond);
        }
        const ratios = (to: 'embedded' | 'ceiling') => measured.postgres.map((x, i) => x / measured[to][i]);
        const toEmbedded = median(ratios('embedded'));
        const toCeiling = median(ratios('ceiling'));
        const goal = Math.min(EMBEDDED_SHARE / toEmbedded, CEILING_SHARE / toCeiling) * median(measured.postgres);
        const figure: PgCeilingFigure = {
          graph,
          workers: workers ?? 'default',
          rounds: measured,
          postgres: median(measured.postgres),
          embedded: median(measured.embedded),
          ceiling: median(measured.ceiling),
          toEmbedded: round3(toEmbedded),
          toEmbeddedRange: [round3(Math.min(...ratios('embedded'))), round3(Math.max(...ratios('embedded')))],
          toCeiling: round3(toCeiling),
          toCeilingRange: [round3(Math.min(...ratios('ceiling'))), round3(Math.max(...ratios('ceiling')))],
          met: toEmbedded >= EMBEDDED_SHARE || toCeiling >= CEILING_SHARE,
          recorded: { create: recorded.create.length, execute: recorded.execute.length },
        };
        figures.push(figure);
        log(
          `  ${name}: PostgreSQL ${figure.postgres} runs/s (${measured.postgres.join(', ')}), embedded ${figure.embedded} (${measured.embedded.join(', ')}), ceiling ${figure.ceiling} (${measured.ceiling.join(', ')}); ÷ embedded ${figure.toEmbedded} [${figure.toEmbeddedRange.join('–')}] (goal ${EMBEDDED_SHARE}), ÷ ceiling ${figure.toCeiling} [${figure.toCeilingRange.join('–')}] (goal ${CEILING_SHARE}): ${figure.met ? 'met' : `missed (would need ~${Math.round(goal)} runs/s)`}`,
        );
      } finally {
        await Promise.all(processes.map((ap) => ap.stop()));
      }
    }
  } finally {
    if (!options.counter) await counter.stop();
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'pgceiling-'));
  const began = performance.now();
  const log = (s: string) => console.log(`[${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${s}`);
  const figures = await measurePgCeiling({ work, log, rounds: Number(process.argv[2] ?? REPLICA_ROUNDS) });
  console.log(JSON.stringify(figures, null, 2));
  fs.rmSync(work, { recursive: true, force: true });
}
