// The runs reference: the bench graph run by LangGraph alone in a process of its own (no HTTP,
// no queue, no store; LangGraph's in-memory MemorySaver), in the counts the servers get: what
// LangGraph's own work costs, beside which each server's share is read. Not a bound: a
// checkpointer that does less per put than MemorySaver lets a server run the graph faster.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import type { RunFigure } from './figures.ts';
import { BENCH_GRAPH, ROOT, writeBenchGraph } from './graph.ts';
import { medianRound } from './runs.ts';

const RUNNER = path.join(ROOT, 'scripts/bench/graphAloneRunner.ts');

type Rounds = Record<'one' | 'many', { runs: number; seconds: number; cpuMs?: number }[]>;

/** One fresh process of LangGraph alone, with the counts given (the runs phase's when none). */
export async function graphAloneProcess(counts?: {
  warmUp: readonly (readonly [number, number])[];
  oneThreadRuns: number;
  runsPerThread: number;
  rounds: number;
}): Promise<Rounds> {
  const graph = writeBenchGraph(path.join(ROOT, '.bench/graph'));
  const args = ['--import', 'tsx', RUNNER, graph, ...(counts ? [JSON.stringify(counts)] : [])];
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Rounds;
}

export async function measureGraphAlone(log: (line: string) => void): Promise<RunFigure[]> {
  const measured = await graphAloneProcess();
  const perSecond = (r: { runs: number; seconds: number }) => Math.round((r.runs / r.seconds) * 10) / 10;
  const figures = (['one', 'many'] as const).map((key): RunFigure => {
    // the median of its rounds, as the servers' figures
    const { runs, seconds } = medianRound(measured[key]);
    return {
      server: 'graph-alone',
      graph: BENCH_GRAPH,
      scenario: key === 'one' ? 'one thread' : '100 threads',
      runs,
      seconds: Math.round(seconds * 100) / 100,
      runsPerSecond: perSecond({ runs, seconds }),
      failed: 0,
      rounds: measured[key].map(perSecond),
    };
  });
  for (const f of figures)
    log(
      `  LangGraph alone  ${f.graph.padEnd(10)} runs, ${f.scenario.padEnd(11)}: median of ${f.rounds!.length} rounds ${f.runsPerSecond} runs/s (${f.rounds!.join(', ')})`,
    );
  return figures;
}
