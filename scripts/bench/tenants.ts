// The cost of keeping tenants apart in the run workers (agent-server auth on): a worker holds
// one tenant's runs at a time, so runs of different tenants never interleave in one worker.
// The same runs — a graph that awaits 200 ms (a model call's stand-in) then echoes, 5 runs
// on each of 20 threads, created back to back — owned by 1, 4 and 20 tenants, on a server
// with 2 run workers: with one tenant the runs interleave in both workers up to
// AGENTPLANE_MAX_CONCURRENT_RUNS; with more tenants at most one tenant per worker runs.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startAgentplane } from './agentplane.ts';
import type { TenantFigure } from './figures.ts';
import { ROOT } from './graph.ts';
import { enqueueAndDrain } from './runs.ts';

export const TENANT_GRAPH = 'wait_echo';
export const TENANT_COUNTS = [1, 4, 20];
export const TENANT_THREADS = 20;
export const TENANT_RUNS_PER_THREAD = 5;
export const TENANT_WORKERS = 2;
export const TENANT_WAIT_MS = 200;

/** Writes the waiting echo graph beside the bench's echo; returns its `file:export` spec. */
function writeWaitGraph(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'examples/graphs/echo.ts'), path.join(dir, 'echo-fn.ts'));
  const file = path.join(dir, 'wait-echo.ts');
  fs.writeFileSync(
    file,
    `// Written by scripts/bench/tenants.ts: awaits ${TENANT_WAIT_MS} ms (a model call's stand-in), then echoes.
import { setTimeout as sleep } from 'node:timers/promises';
import { echo } from './echo-fn.ts';

export async function waitEcho(state: never) {
  await sleep(${TENANT_WAIT_MS});
  return echo(state);
}
`,
  );
  return `${file}:waitEcho`;
}

export async function measureTenants(workDir: string, log: (s: string) => void): Promise<TenantFigure[]> {
  const graph = writeWaitGraph(path.join(ROOT, '.bench/graph'));
  const figures: TenantFigure[] = [];
  for (const tenants of TENANT_COUNTS) {
    const keys = Array.from({ length: tenants }, () => ({ key: `bench-${randomUUID()}`, tenant: randomUUID() }));
    const ap = await startAgentplane({
      dataDir: null,
      workDir: path.join(workDir, `tenants-${tenants}`),
      key: keys[0].key,
      tenant: keys[0].tenant,
      graphs: { [TENANT_GRAPH]: graph },
      env: {
        AGENTPLANE_AGENT_SERVER_AUTH: '1',
        // the figure is the runs' throughput across tenants, not one tenant's request rate (100 a second by default)
        AGENTPLANE_MAX_REQUESTS_PER_SECOND: '1000000',
        AGENTPLANE_MAX_REQUEST_BURST: '1000000',
        AGENTPLANE_RUN_WORKERS: String(TENANT_WORKERS),
        AGENTPLANE_API_KEYS: keys.map((k) => `${k.key}:${k.tenant}`).join(','),
      },
    });
    try {
      const targetOf = (key: string) => ({ server: 'agentplane' as const, url: ap.url, headers: { 'x-api-key': key }, assistant: TENANT_GRAPH });
      // warm-up: both workers load the graphs
      await enqueueAndDrain(targetOf(keys[0].key), TENANT_WORKERS * 2, 1);
      const started = performance.now();
      const parts = await Promise.all(keys.map((k) => enqueueAndDrain(targetOf(k.key), TENANT_THREADS / tenants, TENANT_RUNS_PER_THREAD)));
      const seconds = (performance.now() - started) / 1000;
      const runs = parts.reduce((n, p) => n + p.runs, 0);
      const figure: TenantFigure = {
        tenants,
        workers: TENANT_WORKERS,
        threads: TENANT_THREADS,
        runs,
        seconds: Math.round(seconds * 100) / 100,
        runsPerSecond: Math.round((runs / seconds) * 10) / 10,
        failed: parts.reduce((n, p) => n + p.failed, 0),
      };
      log(`  ${tenants} tenant(s): ${runs} runs in ${figure.seconds} s = ${figure.runsPerSecond} runs/s (not success: ${figure.failed})`);
      figures.push(figure);
    } finally {
      await ap.stop();
    }
  }
  return figures;
}
