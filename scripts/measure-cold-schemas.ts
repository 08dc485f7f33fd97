// Measures a cold `GET /assistants/{graph}/schemas`: a fresh `agentplane serve` (the CLI, as a
// user starts it), no kept schemas on disk, the first request after it listens. Prints, per
// trial, the request's wall time and the server's CPU time (user + system of every thread,
// from /proc) from listening to answered and from start to answered; then medians.
// usage: [WARMUP=0] npx tsx scripts/measure-cold-schemas.ts <config file> <graph> [trials=3]
// (WARMUP=0: without reading the types in the background at start, as the test servers)
import fs from 'node:fs';
import path from 'node:path';
import { spawnServer, ROOT, tempDir } from '../test/support/server.ts';

const [config, graph, trialsArg] = process.argv.slice(2);
const trials = Number(trialsArg ?? 3);
const cpuOf = (pid: number): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 10 ms
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows: { wall: number; cpu: number; total: number }[] = [];
for (let i = 0; i < trials; i++) {
  fs.rmSync(path.join(ROOT, 'node_modules', '.cache', 'agentplane', 'schemas'), { recursive: true, force: true });
  const server = await spawnServer(['--config', path.resolve(config), '--data', tempDir()], { AGENTPLANE_SCHEMA_WARMUP: process.env.WARMUP ?? '1' });
  const pid = server.process.pid!;
  const cpu0 = cpuOf(pid);
  const t0 = performance.now();
  const response = await fetch(`${server.url}/assistants/${graph}/schemas`);
  const body = (await response.json()) as Record<string, unknown>;
  const wall = (performance.now() - t0) / 1000;
  const row = { wall, cpu: cpuOf(pid) - cpu0, total: cpuOf(pid) };
  rows.push(row);
  console.log(`trial ${i + 1}: ${response.status} wall ${wall.toFixed(2)} s, cpu ${row.cpu.toFixed(2)} s (since start ${row.total.toFixed(2)} s)`);
  if (i === 0 && process.env.OUT) fs.writeFileSync(process.env.OUT, JSON.stringify(body, null, 1));
  await server.kill('SIGTERM');
}
console.log(
  `median of ${trials}: wall ${median(rows.map((r) => r.wall)).toFixed(2)} s, cpu ${median(rows.map((r) => r.cpu)).toFixed(2)} s, cpu since start ${median(rows.map((r) => r.total)).toFixed(2)} s`,
);
process.exit(0);
