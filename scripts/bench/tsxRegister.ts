// `npx tsx scripts/bench/tsxRegister.ts [rounds]`: what tsx's hooks thread costs a start's main
// thread. Each round starts, in turns, a fresh node that loads LangGraph as plain JavaScript,
// and tsx's API (without its cache, as typescriptLoader.ts does), then calls tsx's register()
// (the main thread waits there while the hooks thread starts) and
// imports the bench's TypeScript graph through the hooks, in three settings: tsx's compile cache
// in a folder of its own (a machine that ran tsx on little), in the machine's shared folder
// (os.tmpdir()/tsx-<uid>, as many files as every tsx run left there in a week), and off
// (TSX_DISABLE_CACHE, what typescriptLoader.ts does for the hooks thread). Prints the medians of
// the register() wait and of the graph's import, in ms, beside the load average.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, writeBenchGraph } from './graph.ts';

const rounds = Number(process.argv[2] ?? 8);
const graph = writeBenchGraph(path.join(ROOT, '.bench/graph')).split(':')[0];
const own = fs.mkdtempSync(path.join(os.tmpdir(), 'tsx-register-'));
// in the repository, so that LangGraph and tsx resolve from its node_modules
const probe = path.join(ROOT, '.bench', 'tsx-register-probe.mjs');
fs.writeFileSync(
  probe,
  `await import('@langchain/langgraph');
// this thread's tsx without its cache, as typescriptLoader.ts loads it; the hooks thread as HOOKS_CACHE says
process.env.TSX_DISABLE_CACHE = '1';
const { register } = await import('tsx/esm/api');
if (process.env.HOOKS_CACHE === 'on') delete process.env.TSX_DISABLE_CACHE;
const before = performance.now();
register();
const registered = performance.now();
await import(${JSON.stringify(graph)});
console.log(JSON.stringify([registered - before, performance.now() - registered]));
`,
);
const settings: Record<string, Record<string, string | undefined>> = {
  'cache, a folder of its own': { TMPDIR: own, HOOKS_CACHE: 'on' },
  "cache, the machine's shared folder": { HOOKS_CACHE: 'on' },
  'no cache': { HOOKS_CACHE: 'off' },
};
const shared = path.join(os.tmpdir(), `tsx-${os.userInfo().uid}`);
const sharedFiles = fs.existsSync(shared) ? fs.readdirSync(shared).length : 0;
const figures = Object.fromEntries(Object.keys(settings).map((name) => [name, [] as [number, number][]]));
const run = (env: Record<string, string | undefined>) => {
  const merged: Record<string, string | undefined> = { ...process.env, ...env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete merged[key];
  return JSON.parse(execFileSync(process.execPath, [probe], { cwd: ROOT, env: merged as NodeJS.ProcessEnv, encoding: 'utf8' })) as [number, number];
};
// once untimed: the own folder's cache holds the graph from then on, as a second start's would
run(settings['cache, a folder of its own']);
for (let i = 0; i < rounds; i += 1) {
  const order = Object.keys(settings);
  for (const name of i % 2 === 0 ? order : order.reverse()) figures[name].push(run(settings[name]));
}
fs.rmSync(own, { recursive: true, force: true });
fs.rmSync(probe, { force: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, xs] of Object.entries(figures)) {
  console.log(`${name}: register() ${Math.round(median(xs.map((x) => x[0])))} ms, graph ${Math.round(median(xs.map((x) => x[1])))} ms (${rounds} starts)`);
}
console.log(
  `shared folder ${shared}: ${sharedFiles} files; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
