// The queue role the rendered queue Deployment runs (AGENTPLANE_ROLE=queue): a process that
// serves no API (only /ok and /metrics) and executes the runs API servers store in their shared
// PostgreSQL; without a database it refuses to start.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { freshDatabaseUrl } from '../support/postgres.ts';
import { ROOT, spawnServer, tempDir, type ChildServer } from '../support/server.ts';

let api: ChildServer;
let queue: ChildServer;
let project: string;

before(async () => {
  project = tempDir('agentplane-queue-role-');
  // each run answers with the role of the process that executed it
  fs.writeFileSync(
    path.join(project, 'role.mjs'),
    `export async function role() { await new Promise((r) => setTimeout(r, 1000)); return { messages: [{ role: 'assistant', content: process.env.AGENTPLANE_ROLE ?? 'unset' }] }; }\n`,
  );
  fs.writeFileSync(path.join(project, 'agentplane.json'), JSON.stringify({ graphs: { role: './role.mjs:role' } }));
  const database = await freshDatabaseUrl();
  const common = { DATABASE_URL: database, AGENTPLANE_RUN_WORKERS: '0', LOG_LEVEL: 'info' };
  api = await spawnServer(
    ['--config', path.join(project, 'agentplane.json')],
    { ...common, AGENTPLANE_ROLE: 'server', AGENTPLANE_MAX_CONCURRENT_RUNS: '1' },
    project,
  );
  queue = await spawnServer(
    ['--config', path.join(project, 'agentplane.json')],
    { ...common, AGENTPLANE_ROLE: 'queue', AGENTPLANE_MAX_CONCURRENT_RUNS: '4' },
    project,
  );
});

after(async () => {
  await api?.kill('SIGTERM');
  await queue?.kill('SIGTERM');
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

test('a queue worker answers only /ok and /metrics', { timeout: 60_000 }, async () => {
  assert.equal((await fetch(`${queue.url}/ok`)).status, 200);
  assert.equal((await fetch(`${queue.url}/metrics`)).status, 200);
  assert.equal((await fetch(`${queue.url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 404);
  assert.equal((await fetch(`${queue.url}/v2/deployments`)).status, 404);
});

test('runs stored by an API server are executed by the queue worker too', { timeout: 120_000 }, async () => {
  // the API server executes one run at a time: six runs of a second each leave work for the queue
  const threads: string[] = [];
  for (let i = 0; i < 6; i += 1) {
    const thread = (await (await fetch(`${api.url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as {
      thread_id: string;
    };
    const run = await fetch(`${api.url}/threads/${thread.thread_id}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'role', input: { messages: [{ role: 'user', content: `run ${i}` }] } }),
    });
    assert.equal(run.status, 200, await run.clone().text());
    threads.push(thread.thread_id);
  }
  const roles: string[] = [];
  for (const thread of threads) {
    const runs = (await (await fetch(`${api.url}/threads/${thread}/runs`)).json()) as { run_id: string }[];
    await fetch(`${api.url}/threads/${thread}/runs/${runs[0].run_id}/join`);
    const state = (await (await fetch(`${api.url}/threads/${thread}/state`)).json()) as { values: { messages: { content: string }[] } };
    roles.push(state.values.messages.at(-1)?.content ?? '');
  }
  assert.ok(roles.includes('queue'), `roles of the executing processes: ${roles.join(', ')}`);
  assert.ok(
    roles.every((r) => r === 'queue' || r === 'server'),
    roles.join(', '),
  );
});

test('a queue worker without a database refuses to start, saying why', () => {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'serve', '--port', '0', '--memory'], {
    env: { ...process.env, AGENTPLANE_ROLE: 'queue', DATABASE_URL: '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stdout + result.stderr, /AGENTPLANE_ROLE=queue needs DATABASE_URL/);
});
