// Webhooks still being retried survive the replica retrying them: three replicas on one
// PostgreSQL database, runs whose receiver fails until the replica holding their deliveries is
// killed (kill -9, then SIGTERM); every delivery is then made by another replica, exactly once.
// And a single server on the embedded store killed with kill -9 resumes its deliveries when it
// starts again on its data directory.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import pg from 'pg';
import { spawnServer, tempDir, type ChildServer } from '../../support/server.ts';
import { freshDatabaseUrl } from '../../support/postgres.ts';
import { FIXTURE_CONFIG } from '../../fixtures/agent-server/project.ts';
import { logLine } from '../../support/logLines.ts';

const RUNS = 12;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A webhook receiver that answers 503 while `failing`, noting every request and its answer. */
class Receiver {
  failing = true;
  readonly requests: { runId: string; status: number; at: number }[] = [];
  private server!: http.Server;
  url = '';

  async open(): Promise<void> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const status = this.failing ? 503 : 200;
        this.requests.push({ runId: (JSON.parse(body) as { run_id: string }).run_id, status, at: Date.now() });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  delivered(runId: string): number {
    return this.requests.filter((r) => r.runId === runId && r.status === 200).length;
  }

  close(): void {
    this.server?.close();
  }
}

/** The fixture project with webhooks retried quickly, each attempt bounded at 1 s, to the receiver on loopback. */
function projectFile(): string {
  const fixture = JSON.parse(fs.readFileSync(FIXTURE_CONFIG, 'utf8')) as { graphs: Record<string, string> };
  const graphs = Object.fromEntries(Object.entries(fixture.graphs).map(([id, spec]) => [id, path.resolve(path.dirname(FIXTURE_CONFIG), spec)]));
  const file = path.join(tempDir(), 'agentplane.json');
  fs.writeFileSync(
    file,
    JSON.stringify({ graphs, webhooks: { max_attempts: 30, retry_base_ms: 200, timeout_ms: 1_000, url: { allowed_networks: ['127.0.0.1/32'] } } }),
  );
  return file;
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

const client = (server: ChildServer) => new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });

/** Runs on the echo graph, created through the given servers in turn, each naming the webhook; waited for until they end. */
async function runsWithWebhooks(servers: ChildServer[], hook: string): Promise<string[]> {
  const runs: { threadId: string; runId: string }[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const c = client(servers[i % servers.length]);
    const threadId = (await c.threads.create()).thread_id;
    const run = await c.runs.create(threadId, 'echo', { input: { messages: [{ role: 'user', content: `hook ${i}` }] }, webhook: hook });
    runs.push({ threadId, runId: run.run_id });
  }
  for (const { threadId, runId } of runs) await client(servers[0]).runs.join(threadId, runId);
  return runs.map((run) => run.runId);
}

describe('webhooks in retry when their replica dies (three replicas on one PostgreSQL database)', () => {
  const receiver = new Receiver();
  const replicas: ChildServer[] = [];
  let databaseUrl = '';
  let project = '';
  let db: pg.Client;
  const start = async () => {
    const server = await spawnServer(['--data', tempDir(), '--config', project], {
      DATABASE_URL: databaseUrl,
      AGENTPLANE_ACCESS_LOG: '0',
      AGENTPLANE_RUN_LEASE_S: '3',
    });
    replicas.push(server);
    return server;
  };
  const replicaIdOf = (server: ChildServer): string => logLine(server.output(), 'agentplane listening')!.replica_id;

  before(async () => {
    await receiver.open();
    project = projectFile();
    databaseUrl = await freshDatabaseUrl();
    await start();
    await Promise.all([start(), start()]);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    for (const server of replicas) await server.kill('SIGKILL');
    receiver.close();
  });

  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    it(`${signal}: the deliveries its replica held are made by another, each exactly once`, async () => {
      receiver.failing = true;
      const live = replicas.filter((server) => server.process.exitCode === null && server.process.signalCode === null);
      const runIds = await runsWithWebhooks(live, receiver.url);
      // every delivery is stored, held by the replica that recorded its run's end, and has failed at least once
      const held = async () =>
        (
          await db.query<{ run_id: string; holder: string; attempts: number }>(
            `SELECT doc->>'run_id' AS run_id, holder, (doc->>'attempts')::int AS attempts FROM agentplane_webhook_deliveries WHERE doc->>'run_id' = ANY($1)`,
            [runIds],
          )
        ).rows;
      await waitFor('every delivery stored and retried', async () => {
        const rows = await held();
        return rows.length === RUNS && rows.every((row) => row.attempts >= 1);
      });
      // the replica holding the most of them dies with them in retry
      const rows = await held();
      const byHolder = new Map<string, string[]>();
      for (const row of rows) byHolder.set(row.holder, [...(byHolder.get(row.holder) ?? []), row.run_id]);
      const [holder, ofVictim] = [...byHolder.entries()].sort((a, b) => b[1].length - a[1].length)[0];
      const victim = live.find((server) => replicaIdOf(server) === holder);
      assert.ok(victim, 'the deliveries are held by a live replica');
      await victim.kill(signal);
      const diedAt = Date.now();
      receiver.failing = false;
      // each delivered, and none left to deliver again
      // (the survivors' own deliveries wait out their back-off, which grows while the test waits for the kill: up to ~25 s on a loaded machine)
      await waitFor('every delivery made', async () => runIds.every((id) => receiver.delivered(id) >= 1) && (await held()).length === 0, 120_000);
      for (const id of runIds) assert.equal(receiver.delivered(id), 1, `run ${id} delivered once`);
      // the victim's by the others, after it died
      for (const id of ofVictim) assert.ok(receiver.requests.find((r) => r.runId === id && r.status === 200)!.at >= diedAt);
      const survivors = live.filter((server) => server !== victim).map((server) => server.output());
      for (const id of ofVictim)
        assert.ok(
          survivors.some((output) => logLine(output, 'webhook taken over', (line) => line.run_id === id)),
          `run ${id}'s delivery taken over by another replica`,
        );
    });
  }
});

describe('a single server on the embedded store, killed with kill -9 while retrying a webhook', () => {
  const receiver = new Receiver();
  let server: ChildServer | undefined;
  before(() => receiver.open());
  after(async () => {
    await server?.kill('SIGKILL');
    receiver.close();
  });

  it('resumes the delivery when it starts again on its data directory, and makes it once', async () => {
    const dataDir = tempDir();
    const project = projectFile();
    const env = { AGENTPLANE_ACCESS_LOG: '0' };
    server = await spawnServer(['--data', dataDir, '--config', project], env);
    const thread = await client(server).threads.create();
    const run = await client(server).runs.create(thread.thread_id, 'echo', { input: { messages: [{ role: 'user', content: 'hook' }] }, webhook: receiver.url });
    await waitFor('a failed attempt', () => receiver.requests.some((r) => r.runId === run.run_id));
    await server.kill('SIGKILL');
    receiver.failing = false;
    server = await spawnServer(['--data', dataDir, '--config', project], env);
    await waitFor('the delivery', () => receiver.delivered(run.run_id) === 1);
    assert.ok(logLine(server.output(), 'webhook taken over', (line) => line.run_id === run.run_id));
    await waitFor('the delivery logged', () => logLine(server!.output(), 'webhook delivered', (line) => line.run_id === run.run_id) !== undefined);
    assert.equal(receiver.delivered(run.run_id), 1);
  });
});
