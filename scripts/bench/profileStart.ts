// `npx tsx scripts/bench/profileStart.ts [out dir]`: profiles a start. agentplane starts under
// `node --cpu-prof` with the bench's project (its two echo graphs) and is stopped as soon as
// `GET /ok` answers 200, so the profile is the start and little else; its main thread is drawn
// as a flame graph (flame.ts) into the out dir (default docs/profiles/start.svg). The
// .cpuprofile stays in .bench/.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { renderFlameGraph } from './flame.ts';

const out = path.resolve(ROOT, process.argv[2] ?? 'docs/profiles');
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'profile-start-'));
const profiles = path.join(work, 'cpu');
const ap = await startAgentplane({ dataDir: path.join(work, 'data'), workDir: work, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profiles}`] });
console.log(`start to first 200 under the profiler: ${Math.round(ap.startMs)} ms`);
await ap.stop();
const main = fs.readdirSync(profiles).find((f) => /\.0\.\d+\.cpuprofile$/.test(f));
if (!main) throw new Error(`no main-thread profile written in ${profiles}`);
fs.copyFileSync(path.join(profiles, main), path.join(ROOT, '.bench', 'start.cpuprofile'));
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(
  path.join(out, 'start.svg'),
  renderFlameGraph(JSON.parse(fs.readFileSync(path.join(profiles, main), 'utf8')), 'agentplane start, spawn to the first 200 from GET /ok: the main thread'),
);
console.log(`wrote ${path.join(out, 'start.svg')}; the profile is .bench/start.cpuprofile`);
fs.rmSync(work, { recursive: true, force: true });
