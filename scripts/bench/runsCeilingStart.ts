// Starts the runs ceiling (runsCeilingServer.ts) as a child process, the way the bench starts
// every server: the least a server can do for the fresh rounds' runs (issue 86).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, writeBenchGraph } from './graph.ts';
import { freePort, startChild, type Child } from './proc.ts';

/** The shape the fresh rounds take by default: two worker threads, every record and checkpoint journaled. */
export const RUNS_CEILING_WORKERS = Number(process.env.BENCH_RUNS_CEILING_WORKERS ?? 2);

/** A fresh runs ceiling on a free port: `workers` worker threads (0: the graph on its loop), a journal in `journalDir` when given. */
export async function startRunsCeiling(options: { workers: number; journalDir?: string }): Promise<Child> {
  const graph = writeBenchGraph(path.join(ROOT, '.bench/graph'));
  const port = await freePort();
  if (options.journalDir) fs.mkdirSync(options.journalDir, { recursive: true });
  return startChild({
    name: `runs-ceiling-${options.workers}`,
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'scripts/bench/runsCeilingServer.ts'), String(port), graph],
    cwd: ROOT,
    env: { RUNS_CEILING_WORKERS: String(options.workers), ...(options.journalDir ? { RUNS_CEILING_JOURNAL: options.journalDir } : {}) },
    port,
    probePath: '/ok',
  });
}
