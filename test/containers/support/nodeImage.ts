// Container images for tests on a machine with no registry: a root filesystem made of this
// host's node binary, the shared libraries `ldd` lists for it and a few scripts, imported
// with `podman import`. Enough for an init container, an HTTP server and a sidecar.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONTAINERS_CONF = fileURLToPath(new URL('../../../config/containers.conf', import.meta.url));
/**
 * AGENTPLANE_IMAGE_NAMESPACES of the control planes these tests start: any registry (the
 * default) and this machine's storage, where the test images are built (`localhost/agentplane-test-…`).
 * Another deployment's build (`localhost/agentplane-deployment-<id>`) stays its own all the same.
 */
export const TEST_IMAGE_NAMESPACES = '*,localhost';

/** podman with the project's containers.conf (cgroupfs, runc: what works on this kernel). */
export function podman(args: string[], input?: string): string {
  return execFileSync('podman', args, {
    encoding: 'utf8',
    input,
    env: { ...process.env, CONTAINERS_CONF },
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

export function podmanAvailable(): boolean {
  try {
    podman(['info', '--format', '{{.Host.OCIRuntime.Name}}']);
    return true;
  } catch {
    return false;
  }
}

/** The scripts the image carries, each run as `node /app/<name>.js`. */
const SCRIPTS: Record<string, string> = {
  // init container: leaves a file in the shared volume, then exits
  'init.js': `require('fs').writeFileSync(process.env.OUT_FILE, process.env.GREETING + '\\n'); console.log('init wrote', process.env.OUT_FILE);`,
  // sidecar: keeps writing a heartbeat into the shared volume while it runs
  'sidecar.js': `const fs = require('fs'); const beat = () => fs.writeFileSync(process.env.BEAT_FILE, new Date().toISOString() + '\\n'); beat(); setInterval(beat, 1000); console.log('sidecar running'); process.on('SIGTERM', () => process.exit(0));`,
  // main container: answers /ok as an agent server does (with ?check_db=1 too: it keeps nothing in a database) and serves files of the shared volume
  'main.js': `
const http = require('http'); const fs = require('fs'); const path = require('path');
const dir = process.env.SHARED_DIR || '/shared';
http.createServer((req, res) => {
  if (req.url.split('?')[0] === '/ok') { res.setHeader('content-type', 'application/json'); return res.end(JSON.stringify({ ok: true, role: process.env.AGENTPLANE_ROLE || 'server' })); }
  if (req.url.startsWith('/env/')) return res.end(process.env[req.url.slice(5)] ?? '');
  if (req.url.startsWith('/files/')) {
    try { return res.end(fs.readFileSync(path.join(dir, path.basename(req.url)))); } catch { res.statusCode = 404; return res.end('missing'); }
  }
  res.statusCode = 404; res.end();
}).listen(Number(process.env.PORT || 8000), '0.0.0.0', () => console.log(JSON.stringify({ level: 30, time: Date.now(), msg: 'test server listening' })));
process.on('SIGTERM', () => process.exit(0));
`,
};

function sharedLibraries(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  return [...out.matchAll(/(\/\S+) \(0x/g)].map((m) => m[1]);
}

/**
 * Builds `localhost/agentplane-test-node:<tag>`: node, its libraries, /app scripts, /tmp. Its
 * default command runs the main server. Returns the image reference.
 */
async function buildNodeImage(tag: string): Promise<string> {
  const ref = `localhost/agentplane-test-node:${tag}`;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-rootfs-'));
  try {
    const put = (from: string, to = from) => {
      const target = path.join(root, to);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(fs.realpathSync(from), target);
      fs.chmodSync(target, 0o755);
    };
    put(process.execPath, '/usr/bin/node');
    for (const lib of sharedLibraries(process.execPath)) put(lib);
    for (const [name, text] of Object.entries(SCRIPTS)) {
      fs.mkdirSync(path.join(root, 'app'), { recursive: true });
      fs.writeFileSync(path.join(root, 'app', name), text);
    }
    for (const dir of ['tmp', 'shared', 'etc']) {
      fs.mkdirSync(path.join(root, dir), { recursive: true });
      // set apart from mkdir, whose mode the umask narrows (to 1755: a non-root container could not write /tmp)
      fs.chmodSync(path.join(root, dir), 0o1777);
    }
    await importRootfs(root, ['CMD ["/usr/bin/node", "/app/main.js"]', 'ENV PATH=/usr/bin'], ref);
    return ref;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * A tag naming what an image of these tests is made of: the builder's source (its scripts and
 * layout) and each host file copied in (path, size, time). The same inputs, the same tag: the
 * image is built once per machine and shared by the files of a run, as the base image is.
 */
export function contentTag(builder: string, files: string[]): string {
  const hash = createHash('sha256').update(fs.readFileSync(fileURLToPath(builder)));
  for (const file of files) {
    const stat = fs.statSync(file);
    hash.update(`${file}:${stat.size}:${stat.mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 12);
}

/**
 * `podman import` of the folder `root` as `ref`, with `changes` (Containerfile lines), tar's
 * stream piped to it. Asynchronous, so that the suite's shared layers build the test images
 * while the server image builds, not after it.
 */
export function importRootfs(root: string, changes: string[], ref: string): Promise<void> {
  const tar = spawn('tar', ['-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const importer = spawn('podman', ['import', ...changes.flatMap((change) => ['--change', change]), '-', ref], {
    env: { ...process.env, CONTAINERS_CONF },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  tar.stdout.pipe(importer.stdin);
  const ended = (child: ChildProcess, what: string) =>
    new Promise<void>((resolve, reject) => {
      let errors = '';
      child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${what} exited with ${code}: ${errors}`))));
    });
  return Promise.all([ended(tar, 'tar'), ended(importer, `podman import of ${ref}`)]).then(() => undefined);
}

/** Resolves `ref`, built by `build` when this machine has no image of that name yet. */
export async function builtOnce(ref: string, build: (ref: string) => Promise<string>): Promise<string> {
  const exists = await new Promise<boolean>((resolve) =>
    execFile('podman', ['image', 'exists', ref], { env: { ...process.env, CONTAINERS_CONF } }, (err) => resolve(!err)),
  );
  return exists ? ref : build(ref);
}

/**
 * The test node image of this host's node and the scripts above, under a tag naming them,
 * built when missing (the suite's shared layers build it before its files start). Kept, not
 * removed: the files of the run use it at once, and the next run finds it.
 */
export const sharedNodeImage = (): Promise<string> =>
  builtOnce(`localhost/agentplane-test-node:${contentTag(import.meta.url, [process.execPath, ...sharedLibraries(process.execPath)])}`, (ref) =>
    buildNodeImage(ref.slice(ref.lastIndexOf(':') + 1)),
  );

export function removeImage(ref: string): void {
  try {
    podman(['rmi', '--force', ref]);
  } catch {
    // already gone
  }
}
