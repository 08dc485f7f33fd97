// Calls of one V8 runtime function a request, per thread, counted exactly by a uprobe on node's
// binary (perf; root): `npx tsx scripts/bench/runtimeCalls.ts [--baseline <ref>] [--idle-ms N]
// [--requests N] [--function NAME]`. Each tree's server is started, left idle `--idle-ms` (8,000:
// what a server waiting for its first request does, and what decided issue 86's tick objects:
// findings.md, h86t32), then takes a warm burst and a counted burst of each route. Default
// function: Runtime_DefineKeyedOwnPropertyInLiteral, which builds an object literal's computed
// key in V8's runtime (~1,300 instructions a call) where the literal's feedback went
// megamorphic. A count, not a time: it does not depend on what else the machine runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { ROOT, startAgentplane } from './agentplane.ts';
import { prepareBaseline } from './baseline.ts';
import { loadRoute, seed } from './routeCpu.ts';
import { ROUTE_CPU_ROUTES } from './routeCpuFigure.ts';

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const requests = Number(arg('requests', '2000'));
const idleMs = Number(arg('idle-ms', '8000'));
const fn = arg('function', 'Runtime_DefineKeyedOwnPropertyInLiteral');
const baselineRef = arg('baseline', '');

/** A uprobe on `fn` in node's binary: its symbol's file offset (the address less its segment's load bias). */
function addProbe(): string {
  const binary = fs.realpathSync(process.execPath);
  const symbol = execFileSync('nm', [binary], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
    .split('\n')
    .find((line) => line.includes(`internal${fn.length}${fn}E`));
  if (!symbol) throw new Error(`${fn}: no such symbol in ${binary}`);
  const address = BigInt(`0x${symbol.split(' ')[0]}`);
  const segment = execFileSync('readelf', ['-lW', binary], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => /^\s*LOAD/.test(line))
    .map((line) => line.trim().split(/\s+/))
    .map(([, offset, vaddr, , , memsz]) => ({ offset: BigInt(offset), vaddr: BigInt(vaddr), size: BigInt(memsz) }))
    .find((s) => address >= s.vaddr && address < s.vaddr + s.size);
  if (!segment) throw new Error(`${fn}: its address is in no loaded segment`);
  const event = `probe_node/h_${fn.slice(0, 40)}`;
  const events = '/sys/kernel/tracing/uprobe_events';
  if (!fs.readFileSync(events, 'utf8').includes(event))
    fs.appendFileSync(events, `p:${event} ${binary}:0x${(address - segment.vaddr + segment.offset).toString(16)}\n`);
  return event.replace('/', ':');
}

/** perf stat's per-thread counts of `event` in `pid` while `work` runs. */
async function counted(event: string, pid: number, work: () => Promise<unknown>): Promise<Map<string, number>> {
  const perf = spawn('perf', ['stat', '--per-thread', '-x', ',', '-e', event, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  perf.stderr.on('data', (d: Buffer) => (text += d));
  await new Promise((resolve) => setTimeout(resolve, 300));
  await work();
  await new Promise((resolve) => setTimeout(resolve, 100));
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.on('close', resolve));
  const threads = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [thread, value] = line.split(',');
    if (value && /^\d+$/.test(value) && Number(value) > 0) threads.set(thread, Number(value));
  }
  return threads;
}

const event = addProbe();
const trees: [string, string][] = [['current', ROOT]];
if (baselineRef) trees.push([baselineRef, prepareBaseline(baselineRef, console.log).root]);
for (const [name, root] of trees) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'runtime-calls-'));
  const ap = await startAgentplane({ dataDir: path.join(work, 'data'), workDir: work, root });
  try {
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const routes = await seed(ap);
    for (const route of ROUTE_CPU_ROUTES) {
      await loadRoute(ap, routes[route], requests);
      const threads = await counted(event, ap.pid, () => loadRoute(ap, routes[route], requests));
      const each = [...threads].map(([thread, n]) => `${thread} ${(n / requests).toFixed(2)}`).join(', ');
      console.log(`${name.padEnd(10)} ${route.padEnd(26)} ${fn} a request: ${each || '0'}`);
    }
  } finally {
    await ap.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
