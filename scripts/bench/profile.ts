// `npx tsx scripts/bench/profile.ts [out dir]`: profiles the request path. agentplane runs
// under `node --cpu-prof` while autocannon drives GET /ok, POST /threads, GET /threads/{id}
// and GET /v2/deployments/{id} in turn (the same client and settings as the HTTP phase);
// on stop the profile is drawn as a flame graph (flame.ts) into the out dir (default
// docs/profiles); the .cpuprofile itself (for Chrome DevTools or speedscope) stays in .bench/.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { deploymentBody, HTTP_CONNECTIONS } from './http.ts';
import { load } from './load.ts';
import { renderFlameGraph } from './flame.ts';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 5);
const out = path.resolve(ROOT, process.argv[2] ?? 'docs/profiles');
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'profile-'));
const profiles = path.join(work, 'cpu');

const ap = await startAgentplane({ dataDir: path.join(work, 'data'), workDir: work, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profiles}`] });
try {
  const deployment = await ap.api('/v2/deployments', { json: deploymentBody('profile') });
  const thread = await ap.api('/threads', { json: {} });
  const routes: [string, string, string?][] = [
    ['GET /ok', '/ok'],
    ['POST /threads', '/threads', '{}'],
    ['GET /threads/{id}', `/threads/${thread.body.thread_id}`],
    ['GET /v2/deployments/{id}', `/v2/deployments/${deployment.body.id}`],
  ];
  for (const [route, url, body] of routes) {
    const headers = body ? { ...ap.headers, 'content-type': 'application/json' } : ap.headers;
    const result = await load({ url: ap.url + url, method: body ? 'POST' : 'GET', body, headers, connections: HTTP_CONNECTIONS, duration: SECONDS });
    console.log(`${route}: ${result.rps} req/s, p50 ${result.p50Ms} ms, non-2xx ${result.non2xx}`);
    // where the route's time goes is read from the flame graph; the rate is only a sanity check (profiling slows it)
  }
} finally {
  await ap.stop();
}
fs.mkdirSync(out, { recursive: true });
const main = fs
  .readdirSync(profiles)
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => path.join(profiles, f))
  .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
if (!main) throw new Error(`no profile written in ${profiles}`);
const kept = path.join(ROOT, '.bench', 'request-path.cpuprofile');
fs.copyFileSync(main, kept);
fs.writeFileSync(
  path.join(out, 'request-path.svg'),
  renderFlameGraph(
    JSON.parse(fs.readFileSync(main, 'utf8')),
    `agentplane request path: GET /ok, POST /threads, GET /threads/{id}, GET /v2/deployments/{id}, ${SECONDS} s each`,
  ),
);
console.log(`wrote ${path.join(out, 'request-path.svg')}; the profile is ${kept}`);
fs.rmSync(work, { recursive: true, force: true });
