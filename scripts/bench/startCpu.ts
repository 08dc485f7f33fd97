// `npx tsx scripts/bench/startCpu.ts [--project bench|repo] [--starts n] [--cpu-prof dir] <tree> [more trees]`:
// the CPU a start costs, on a machine other work shares. Each tree's built `node bin/agentplane.js
// serve` (default settings, a fresh data directory) is started in turns with the others, the
// order flipping every round, and read at its first 200 from a shipped graph's assistant (the
// bench's start probe): the main thread's CPU time (its /proc schedstat, which neighbours move
// much less than wall time), every other thread's, and the wall time beside the load average;
// and the time the main thread neither ran nor waited for a core (wall less its CPU and its
// run-queue wait, schedstat's second field): what it spent blocked, in tsx's register() waiting
// for the hooks thread, on I/O, or idle, which a shared machine's load moves least of all.
// --project bench serves the bench's project (startAgentplane: the echo function and a one-node
// LangGraph graph); repo serves the tree's own agentplane.json (the five example graphs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import { refuseStaleBuild } from './builtTree.ts';
import { freePort, startChild, type Child } from './proc.ts';
import { uuid5 } from '../../src/domain/agent/ids.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { project: { type: 'string', default: 'bench' }, starts: { type: 'string', default: '5' }, 'cpu-prof': { type: 'string' } },
});
if (!positionals.length) throw new Error('usage: startCpu.ts [--project bench|repo] [--starts n] [--cpu-prof dir] <tree> [more trees]');
const trees = positionals.map((tree) => ({
  root: path.resolve(tree),
  main: [] as number[],
  blocked: [] as number[],
  others: [] as number[],
  wall: [] as number[],
}));
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'start-cpu-'));
const profileDir = values['cpu-prof'] && path.resolve(values['cpu-prof']);

/** Milliseconds of CPU each thread of pid has run (schedstat's first field), the main thread's apart. */
function threadCpu(pid: number): { main: number; mainQueued: number; others: number } {
  let main = 0;
  let mainQueued = 0;
  let others = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const [ran, queued] = fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ').map(Number);
      if (task === String(pid)) {
        main = ran / 1e6;
        mainQueued = queued / 1e6;
      } else others += ran / 1e6;
    } catch {
      /* the thread ended meanwhile */
    }
  }
  return { main, mainQueued, others };
}

/** The tree's own project (agentplane.json), probed at its a2a default assistant's record. */
async function startRepoProject(root: string, dataDir: string, nodeArgs: string[]): Promise<Child> {
  const config = path.join(root, 'agentplane.json');
  const project = JSON.parse(fs.readFileSync(config, 'utf8')) as { graphs: Record<string, string>; a2a?: { default_assistant?: string } };
  const graph = project.a2a?.default_assistant ?? Object.keys(project.graphs)[0];
  const key = `bench-${randomUUID()}`;
  const port = await freePort();
  await refuseStaleBuild(root);
  return startChild({
    name: 'agentplane',
    command: process.execPath,
    args: [...nodeArgs, path.join(root, 'bin/agentplane.js'), 'serve', '--port', String(port), '--host', '127.0.0.1', '--config', config, '--data', dataDir],
    cwd: root,
    env: { AGENTPLANE_API_KEYS: `${key}:${randomUUID()}`, AGENTPLANE_VALIDATE_RESPONSES: undefined, NODE_ENV: 'production' },
    port,
    probePath: `/assistants/${uuid5(graph)}`,
    probeHeaders: { 'x-api-key': key },
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const count = Number(values.starts);
for (let i = 0; i < count; i += 1) {
  for (const tree of i % 2 === 0 ? trees : [...trees].reverse()) {
    const dataDir = path.join(work, `data-${i}-${trees.indexOf(tree)}`);
    const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, `${trees.indexOf(tree)}-${i}`)}`] : [];
    const child: Child | Agentplane =
      values.project === 'repo'
        ? await startRepoProject(tree.root, dataDir, nodeArgs)
        : await startAgentplane({ dataDir, workDir: path.join(work, `project-${i}-${trees.indexOf(tree)}`), root: tree.root, nodeArgs });
    const cpu = threadCpu(child.pid);
    tree.main.push(cpu.main);
    tree.blocked.push(child.startMs - cpu.main - cpu.mainQueued);
    tree.others.push(cpu.others);
    tree.wall.push(child.startMs);
    await child.stop();
  }
}
fs.rmSync(work, { recursive: true, force: true });
const list = (xs: number[]) => xs.map(Math.round).join(', ');
for (const t of trees) {
  console.log(
    `${t.root}: main thread CPU median ${Math.round(median(t.main))} ms (${list(t.main)}); blocked ${Math.round(median(t.blocked))} ms (${list(t.blocked)}); other threads ${Math.round(median(t.others))} ms; wall median ${Math.round(median(t.wall))} ms (${list(t.wall)})`,
  );
}
console.log(
  `project ${values.project}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
