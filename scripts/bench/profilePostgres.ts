// `npx tsx scripts/bench/profilePostgres.ts [rounds] [out dir]`: where one PostgreSQL
// replica's time goes in the replicas phase (replicas.ts): a replica on a fresh database of
// the statement-counting cluster (pgCount.ts), run workers off as the bench has them, given
// the phase's 400 plain echo runs over 20 threads `rounds` times (default 3) under
// `node --cpu-prof`. Its main thread is drawn as a flame graph
// (docs/profiles/postgres-replica.svg by default) and its self time printed by function,
// beside each round's runs/s and statements per run, so the PostgreSQL target's explanation
// names where a replica's time goes. The .cpuprofile files stay in .bench/.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { mainThreadFile, renderFlameGraph, selfByFunction, type CpuProfile } from './flame.ts';
import { BENCH_GRAPH, PLAIN_GRAPH } from './graph.ts';
import { countingPostgres } from './pgCount.ts';
import { measureReplicas } from './replicas.ts';
import { removeAtExit } from '../../src/shared/processTempDir.ts';

// `--langgraph`: the replicas phase's second workload instead, the LangGraph echo graph with the
// default run workers (postgres-replica-langgraph.svg)
const langgraph = process.argv.includes('--langgraph');
const [roundsArg, outArg] = process.argv.slice(2).filter((a) => a !== '--langgraph');
const rounds = Number(roundsArg ?? 3);
const out = path.resolve(ROOT, outArg ?? 'docs/profiles');
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'profile-postgres-'));
// the profiles stay in .bench/; the server's data directory goes however the bench ends
removeAtExit(path.join(work, 'data'));
const cpuDir = path.join(work, 'cpu');

const counter = await countingPostgres();
try {
  const url = await counter.freshDatabase();
  const ap = await startAgentplane({
    dataDir: path.join(work, 'data'),
    workDir: work,
    env: langgraph ? { DATABASE_URL: url } : { DATABASE_URL: url, AGENTPLANE_RUN_WORKERS: '0' },
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${cpuDir}`],
  });
  try {
    for (let round = 0; round < rounds; round += 1)
      await measureReplicas([ap], langgraph ? BENCH_GRAPH : PLAIN_GRAPH, langgraph ? 'default' : '0', (line) => console.log(line), undefined, {
        statements: { reset: () => counter.reset(url), count: () => counter.count(url) },
      });
  } finally {
    await ap.stop();
  }
} finally {
  await counter.stop();
}

const files = fs.readdirSync(cpuDir).filter((f) => f.endsWith('.cpuprofile'));
const main = mainThreadFile(files, cpuDir);
const profile = JSON.parse(fs.readFileSync(path.join(cpuDir, main), 'utf8')) as CpuProfile;
fs.mkdirSync(out, { recursive: true });
const svg = path.join(out, langgraph ? 'postgres-replica-langgraph.svg' : 'postgres-replica.svg');
const workload = langgraph ? 'LangGraph echo runs with the default run workers' : 'plain echo runs';
fs.writeFileSync(
  svg,
  renderFlameGraph(profile, `agentplane, one replica on PostgreSQL, ${rounds} × 400 ${workload} over 20 threads (enqueue): the main thread`),
);
console.log(`wrote ${svg}`);

const self = selfByFunction(profile);
const all = self.reduce((sum, [, us]) => sum + us, 0);
const idle = self.find(([key]) => key === '(idle)')?.[1] ?? 0;
console.log(`replica main thread busy ${((all - idle) / 1e6).toFixed(1)} s of ${(all / 1e6).toFixed(1)} s; most self time:`);
for (const [key, us] of self.filter(([k]) => k !== '(idle)').slice(0, 25)) console.log(`  ${(us / 1e6).toFixed(2).padStart(7)} s  ${key}`);
