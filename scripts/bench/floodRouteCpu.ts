// The main thread's CPU for each kind of request a flooding tenant sends (issue 83,
// scripts/bench/tenantFlood.ts), in process: the server as the flood rig makes it (agent-server
// auth on, every limit at its default, the embedded store in a temporary directory, replies not
// checked), each kind sent `n` times one after another through the same pipeline as a socket's
// (light-my-request; the socket's own cost is not in it), by the flooding tenant once past its
// quotas as in a flood (deployments refused at the tenant's 100). CPU time, so a shared
// machine's load inflates it little; B's read of its thread (`read`) beside them says what the
// in-process request itself costs. `npx tsx scripts/bench/floodRouteCpu.ts [n]`
import fs from 'node:fs';
import { inProcessApp } from '../../test/support/server.ts';
import { testProject } from '../../test/fixtures/agent-server/project.ts';

const n = Number(process.argv[2] ?? 400);
/** FLOOD_ROUTE_KINDS=deployment,store: those kinds only (for a --cpu-prof of them). */
const only = process.env.FLOOD_ROUTE_KINDS?.split(',');
const app = await inProcessApp({
  project: testProject,
  dataDir: 'temp',
  runWorkers: '0',
  env: {
    AGENTPLANE_VALIDATE_RESPONSES: '0',
    AGENTPLANE_PHASE_MS: '100',
    AGENTPLANE_AGENT_SERVER_AUTH: '1',
    AGENTPLANE_MAX_REQUESTS_PER_SECOND: '1000000',
    AGENTPLANE_MAX_REQUEST_BURST: '1000000',
  },
});
// the temporary data directory goes with this process, whatever ends it (a test server leaves its own)
process.once('exit', () => app.dataDir && fs.rmSync(app.dataDir, { recursive: true, force: true }));
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
let i = 0;
const kinds: Record<string, () => [string, string, unknown]> = {
  thread: () => ['POST', '/threads', {}],
  run: () => ['POST', '/runs', { assistant_id: 'slow', input: { messages: [] }, context: { delay_ms: 1 } }],
  deployment: () => [
    'POST',
    '/v2/deployments',
    {
      name: `flood-${i++}-${Math.random().toString(36).slice(2)}`,
      source: 'github',
      source_config: { repo_url: 'https://github.com/acme/agent', deployment_type: 'dev' },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    },
  ],
  store: () => ['PUT', '/store/items', { namespace: ['flood'], key: `k${i++}-${Math.random()}`, value: { i } }],
  keyless: () => ['GET', '/threads/00000000-0000-4000-8000-000000000000', undefined],
  read: () => ['GET', `/threads/${threadId}`, undefined],
};
const send = async ([method, path, body]: [string, string, unknown], key = true) => {
  const res = await app.fetch(`${app.url}${path}`, {
    method,
    headers: { ...(key ? { 'x-api-key': app.key } : {}), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
};
const threadId = ((await (await app.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string }).thread_id;
// past the deployment quota, as a flood is after its first seconds
for (let d = 0; d < 100; d++) await send(kinds.deployment());
const figures: Record<string, { status: number; cpu_ms: number }> = {};
for (const round of [0, 1]) {
  for (const [kind, make] of Object.entries(kinds).filter(([k]) => !only || only.includes(k))) {
    let status = 0;
    const before = cpuMs();
    for (let k = 0; k < n; k++) status = await send(make(), kind !== 'keyless');
    const each = (cpuMs() - before) / n;
    // the second round's: the first compiles
    if (round === 1) figures[kind] = { status, cpu_ms: Math.round(each * 1000) / 1000 };
    // the runs end before the next kind
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
console.log(JSON.stringify(figures, null, 2));
await app.close();
