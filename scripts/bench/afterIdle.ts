// What a request costs right after the server sat idle, against right after a short pause:
// `npx tsx scripts/bench/afterIdle.ts [ref|.] [route] [turns]` (BENCH_BASELINE_ROOT: a baseline
// worktree made already; `.`: the current tree alone; BENCH_AFTER_IDLE_NODE_ARGS: node flags
// for the current tree's server, space-separated). Each tree's server in turn is warmed on the
// route (20,000 requests), then, `turns` times, waits 1.5 s or 6 s (alternately) and takes 3,000
// requests (10 connections): the process's CPU µs a request (every thread); 5,000 more follow
// each, so every pause follows the same traffic. The idle collector (runtime/idle/idleCollector.ts)
// runs a full collection once the process has been idle 3 s after its heap grew 8 MB: the 6-s
// pauses let it run, the 1.5-s ones do not (findings.md, "h86q (session 18)").
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { baselineRefFrom, prepareBaseline } from './baseline.ts';
import { loadRoute, processCpuPrecise, seed } from './routeCpu.ts';
import type { RouteName } from './routeCpuFigure.ts';

async function afterPauses(root: string | undefined, route: RouteName, turns: number, nodeArgs: string[]): Promise<string> {
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'after-idle-'));
  const ap = await startAgentplane({ dataDir: path.join(work, 'data'), workDir: work, root, nodeArgs });
  try {
    const r = (await seed(ap))[route];
    await loadRoute(ap, r, 20_000);
    const out: string[] = [];
    for (let i = 0; i < turns; i += 1) {
      const pause = i % 2 ? 6_000 : 1_500;
      await new Promise((resolve) => setTimeout(resolve, pause));
      const at = processCpuPrecise(ap.pid);
      await loadRoute(ap, r, 3_000);
      out.push(`${pause / 1000} s: ${(((processCpuPrecise(ap.pid) - at) / 3_000) * 1e6).toFixed(0)}`);
      await loadRoute(ap, r, 5_000);
    }
    return out.join(', ');
  } finally {
    await ap.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [ref = baselineRefFrom([], process.env) ?? '292602a8', route = 'GET /v2/deployments/{id}', turns = '8'] = process.argv.slice(2);
  const log = (s: string) => console.log(s);
  const nodeArgs = (process.env.BENCH_AFTER_IDLE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  log(`current: ${route} µs a request of the 3,000 after each pause: ${await afterPauses(undefined, route as RouteName, Number(turns), nodeArgs)}`);
  if (ref !== '.') {
    const baselineRoot = process.env.BENCH_BASELINE_ROOT ?? prepareBaseline(ref, log).root;
    log(`${ref}: ${route} µs a request of the 3,000 after each pause: ${await afterPauses(baselineRoot, route as RouteName, Number(turns), [])}`);
  }
}
