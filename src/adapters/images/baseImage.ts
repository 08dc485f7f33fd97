// The base image every agentplane image starts from, built on this machine from this
// machine's files — no registry is needed: the Node.js binary that runs agentplane (and npm
// beside it), the shared libraries `ldd` lists for it, the rest of its C library (glibc's
// whole set of libraries, and the GCC runtime: what prebuilt native addons link against), a
// POSIX shell and `env` (install and build commands, `#!/usr/bin/env node` scripts), the CA
// certificates, and a `node` user (uid 1000) who owns /home/node and /data. Its tag names
// the Node.js version and a hash of what went in, so it is built once per machine and Node.js
// upgrade. It has no coreutils: what a build step needs beyond the shell, it does with node.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ContainerEngine, RunOptions } from './engine.ts';
import { buildOnce } from './buildOnce.ts';

/** Changes when the layout below changes, so an older base is not reused. */
const LAYOUT_VERSION = 2;
const SHELL = '/bin/sh';
const ENV = '/usr/bin/env';
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
export const IMAGE_USER = { name: 'node', uid: 1000 };

/** The files a binary loads: every absolute path `ldd` prints for it. */
function sharedLibraries(binary: string): string[] {
  let output: string;
  try {
    output = execFileSync('ldd', [binary], { encoding: 'utf8' });
  } catch {
    // a static binary ("not a dynamic executable") needs none
    return [];
  }
  return [...output.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
}

/**
 * The shared libraries of glibc (each a part of the C library, installed together: glibc's
 * own list) and of GCC's run time. Node.js links only some of them, but the prebuilt native
 * addons npm installs for linux-*-gnu (rolldown's, swc's, lightningcss's, tailwind's oxide:
 * `optionalDependencies` marked `"libc": ["glibc"]`) are built against the usual glibc
 * system and load any of them: rolldown's binding needs librt.so.1, which node does not, and
 * without it Vite cannot build. Only those present beside the C library the binary links are
 * taken (a musl libc is one file, and libnsl is gone from newer glibc).
 */
const C_RUNTIME_LIBRARIES = [
  'libc.so.6',
  'libm.so.6',
  'libmvec.so.1',
  'libpthread.so.0',
  'libdl.so.2',
  'librt.so.1',
  'libresolv.so.2',
  'libutil.so.1',
  'libanl.so.1',
  'libnsl.so.1',
  'libBrokenLocale.so.1',
  'libthread_db.so.1',
  'libc_malloc_debug.so.0',
  'libnss_files.so.2',
  'libnss_dns.so.2',
  'libnss_compat.so.2',
  'libnss_hesiod.so.2',
  'libgcc_s.so.1',
  'libstdc++.so.6',
  'libatomic.so.1',
];

/**
 * The C runtime's libraries, each from the first of the folders of `linked` (the libraries a
 * binary loads; its C library's folder first, so that they match the C library it runs with).
 */
function cRuntimeBeside(linked: string[]): string[] {
  const libc = linked.filter((file) => path.basename(file) === 'libc.so.6');
  if (!libc.length) return [];
  const folders = [...new Set([...libc, ...linked].map((file) => path.dirname(file)))];
  return C_RUNTIME_LIBRARIES.flatMap((name) => folders.map((folder) => path.join(folder, name)).find((file) => fs.existsSync(file)) ?? []);
}

/** Where npm sits beside the Node.js binary (…/bin/node → …/lib/node_modules/npm), if it does. */
function npmBeside(nodeBinary: string): string | null {
  const real = fs.realpathSync(nodeBinary);
  const candidate = path.join(path.dirname(real), '..', 'lib', 'node_modules', 'npm');
  return fs.existsSync(path.join(candidate, 'bin', 'npm-cli.js')) ? candidate : null;
}

/** What goes into the base image: the binaries, the libraries they and native addons load, npm. */
export function baseImageInputs(nodeBinary: string) {
  const binaries = [nodeBinary, SHELL, ENV];
  const linked = binaries.flatMap(sharedLibraries);
  const libraries = [...new Set([...linked, ...cRuntimeBeside(linked)])];
  const npm = npmBeside(nodeBinary);
  return { binaries, libraries, npm };
}

/** The base image's tag for this machine's Node.js. */
export function baseImageTag(nodeBinary = process.execPath): string {
  const { binaries, libraries, npm } = baseImageInputs(nodeBinary);
  const hash = createHash('sha256').update(String(LAYOUT_VERSION));
  for (const file of [...binaries, ...libraries, ...(npm ? [path.join(npm, 'package.json')] : [])]) {
    const stat = fs.statSync(file);
    hash.update(`${file}:${stat.size}:${stat.mtimeMs}`);
  }
  return `localhost/agentplane-base:node${process.versions.node}-${hash.digest('hex').slice(0, 12)}`;
}

function copyFile(from: string, rootfs: string, to = from): void {
  const target = path.join(rootfs, to);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  // the library's content under the name the loader asks for (links resolved)
  fs.copyFileSync(fs.realpathSync(from), target);
  fs.chmodSync(target, fs.statSync(from).mode & 0o777);
}

/** The root file system, as a directory. */
function assembleRootfs(rootfs: string, nodeBinary: string): void {
  const { libraries, npm } = baseImageInputs(nodeBinary);
  copyFile(nodeBinary, rootfs, '/usr/local/bin/node');
  copyFile(SHELL, rootfs);
  copyFile(ENV, rootfs);
  for (const library of libraries) copyFile(library, rootfs);
  if (npm) {
    fs.cpSync(npm, path.join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true, dereference: true });
    fs.symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(rootfs, 'usr/local/bin/npm'));
    fs.symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', path.join(rootfs, 'usr/local/bin/npx'));
  }
  if (fs.existsSync(CA_BUNDLE)) copyFile(CA_BUNDLE, rootfs);
  const etc = path.join(rootfs, 'etc');
  fs.mkdirSync(etc, { recursive: true });
  fs.writeFileSync(
    path.join(etc, 'passwd'),
    `root:x:0:0:root:/root:${SHELL}\n${IMAGE_USER.name}:x:${IMAGE_USER.uid}:${IMAGE_USER.uid}::/home/${IMAGE_USER.name}:${SHELL}\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
  );
  fs.writeFileSync(path.join(etc, 'group'), `root:x:0:\n${IMAGE_USER.name}:x:${IMAGE_USER.uid}:\nnogroup:x:65534:\n`);
  for (const dir of ['tmp', 'root', `home/${IMAGE_USER.name}`, 'data']) fs.mkdirSync(path.join(rootfs, dir), { recursive: true });
}

const CONTAINERFILE = `FROM scratch
COPY rootfs/ /
RUN ["/usr/local/bin/node", "-e", "const fs = require('fs'); fs.chmodSync('/tmp', 0o1777); for (const d of ['/home/${IMAGE_USER.name}', '/data']) fs.chownSync(d, ${IMAGE_USER.uid}, ${IMAGE_USER.uid})"]
ENV PATH=/usr/local/bin:/usr/bin:/bin HOME=/root SSL_CERT_FILE=${CA_BUNDLE} NODE_EXTRA_CA_CERTS=${CA_BUNDLE}
`;

/** The base image's tag, built first when this machine has none yet. */
export async function ensureBaseImage(engine: ContainerEngine, options: RunOptions = {}, nodeBinary = process.execPath): Promise<string> {
  const tag = baseImageTag(nodeBinary);
  return buildOnce(engine, tag, async () => ((await engine.hasImage(tag)) ? tag : buildBaseImage(engine, tag, options, nodeBinary)));
}

async function buildBaseImage(engine: ContainerEngine, tag: string, options: RunOptions, nodeBinary: string): Promise<string> {
  const context = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-base-'));
  try {
    assembleRootfs(path.join(context, 'rootfs'), nodeBinary);
    fs.writeFileSync(path.join(context, 'Containerfile'), CONTAINERFILE);
    options.onLine?.(`Building the base image ${tag} from this machine's Node.js ${process.versions.node}`);
    await engine.build(['--network', 'none', '-t', tag, '-f', path.join(context, 'Containerfile'), context], options);
    return tag;
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
}
