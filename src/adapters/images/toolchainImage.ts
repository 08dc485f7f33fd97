// The build stage of a project's image (buildImage.ts): the base (baseImage.ts) with a C/C++
// toolchain, so that a dependency compiling a native addon at install (node-gyp: python3,
// make, a C++ compiler and Node's headers) builds, as the official Node images' users build in
// a `node:<v>` stage and run in a `node:<v>-slim` one. The project's install and build run in
// it; the image served is the slim server layer plus what they left in the project's folder.
// Like the base it is assembled from this machine's files, no registry needed: every file of
// the Debian packages that give the compilers, make, python3, coreutils and sed (the shell
// commands gyp's Makefiles run), and the packages they depend on, as dpkg installed them;
// Node's headers from beside the Node.js binary (npm_config_nodedir: node-gyp would otherwise
// download them). A machine without dpkg, or without a compiler installed, has no toolchain:
// the project builds in the server layer, as before.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ContainerEngine, RunOptions } from './engine.ts';
import { baseImageTag, ensureBaseImage } from './baseImage.ts';
import { buildOnce } from './buildOnce.ts';

/** Changes when the layout below changes, so an older toolchain image is not reused. */
const LAYOUT_VERSION = 1;
/** What a native addon's install runs (node-gyp), by the packages that install it on Debian; the rest follows from their dependencies. */
const TOOLCHAIN_PACKAGES = ['g++', 'gcc', 'cpp', 'make', 'python3-minimal', 'libpython3-stdlib', 'coreutils', 'sed', 'grep', 'findutils', 'libc6-dev'];
const NODE_DIR = '/usr/local';

interface Package {
  name: string;
  version: string;
}

function dpkgQuery(args: string[]): string | null {
  try {
    return execFileSync('dpkg-query', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

let packagesHere: Package[] | null | undefined;

/** The installed packages the toolchain needs (their Depends and Pre-Depends, followed), or null when it is not installed here; read once per process. */
export function toolchainPackages(): Package[] | null {
  packagesHere ??= packagesNeeded(TOOLCHAIN_PACKAGES);
  return packagesHere;
}

function packagesNeeded(roots: readonly string[]): Package[] | null {
  // every installed package in one query: name, version, what it needs
  const installed = new Map<string, { version: string; depends: string }>();
  const listing = dpkgQuery(['-W', '-f=${Package}\t${Status}\t${Version}\t${Depends}, ${Pre-Depends}\n']) ?? '';
  for (const line of listing.split('\n')) {
    const [name, status, version, depends] = line.split('\t');
    if (name && status?.endsWith('install ok installed')) installed.set(name, { version: version!, depends: depends! });
  }
  if (roots.some((root) => !installed.has(root))) return null;
  const found = new Map<string, Package>();
  const pending = [...roots];
  while (pending.length) {
    const name = pending.pop()!;
    const entry = installed.get(name);
    if (found.has(name) || !entry) continue;
    found.set(name, { name, version: entry.version });
    // `a (>= 1) | b, c:any` → a, c: the first alternative installed is the one a build here uses
    for (const alternatives of entry.depends.split(',')) {
      const names = alternatives.split('|').map((alt) =>
        alt
          .trim()
          .replace(/\s*\(.*\)$/, '')
          .replace(/:any$/, ''),
      );
      const chosen = names.find((alt) => installed.has(alt));
      if (chosen) pending.push(chosen);
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Node's headers beside the binary (…/bin/node → …/include/node), which node-gyp compiles against. */
function nodeHeaders(nodeBinary: string): string | null {
  const dir = path.join(path.dirname(fs.realpathSync(nodeBinary)), '..', 'include', 'node');
  return fs.existsSync(path.join(dir, 'node.h')) ? dir : null;
}

/** The toolchain image's tag, or null when this machine has no toolchain to give it. */
export function toolchainImageTag(nodeBinary = process.execPath): string | null {
  const packages = toolchainPackages();
  const headers = nodeHeaders(nodeBinary);
  if (!packages || !headers) return null;
  const hash = createHash('sha256').update(`${LAYOUT_VERSION}\n${baseImageTag(nodeBinary)}\n`);
  for (const { name, version } of packages) hash.update(`${name}=${version}\n`);
  return `localhost/agentplane-toolchain:node${process.versions.node}-${hash.digest('hex').slice(0, 12)}`;
}

/** Copies every file and link of the packages into `rootfs`, as dpkg laid them out. */
function copyPackages(packages: Package[], rootfs: string): void {
  for (const { name } of packages) {
    for (const file of (dpkgQuery(['-L', name]) ?? '').split('\n')) {
      if (!file.startsWith('/') || file.startsWith('/usr/share/doc') || file.startsWith('/usr/share/man') || file.startsWith('/usr/share/locale')) continue;
      const stat = fs.lstatSync(file, { throwIfNoEntry: false });
      // folders are made for the files in them; a link to one (merged /usr: /lib64 → usr/lib64) too
      if (!stat || fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() !== false) continue;
      const target = path.join(rootfs, file);
      if (fs.lstatSync(target, { throwIfNoEntry: false })) continue;
      fs.mkdirSync(path.dirname(target), { recursive: true });
      if (stat.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(file), target);
      else fs.copyFileSync(file, target);
    }
  }
  // the alternatives Debian's postinst scripts set (cc, c++), which no package lists
  for (const [link, to] of [
    ['usr/bin/cc', 'gcc'],
    ['usr/bin/c++', 'g++'],
  ]) {
    const target = path.join(rootfs, link);
    if (!fs.lstatSync(target, { throwIfNoEntry: false })) fs.symlinkSync(to, target);
  }
}

/** The toolchain image's tag, built first when missing; null when this machine has no toolchain (the project then builds in the server layer). */
export async function ensureToolchainImage(engine: ContainerEngine, options: RunOptions = {}, nodeBinary = process.execPath): Promise<string | null> {
  const tag = toolchainImageTag(nodeBinary);
  if (!tag) return null;
  return buildOnce(engine, tag, async () => {
    if (await engine.hasImage(tag)) return tag;
    const base = await ensureBaseImage(engine, options, nodeBinary);
    const context = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-toolchain-'));
    try {
      const rootfs = path.join(context, 'rootfs');
      copyPackages(toolchainPackages()!, rootfs);
      fs.cpSync(nodeHeaders(nodeBinary)!, path.join(rootfs, NODE_DIR, 'include', 'node'), { recursive: true, dereference: true });
      fs.writeFileSync(
        path.join(context, 'Containerfile'),
        [`FROM ${base}`, 'COPY rootfs/ /', `ENV npm_config_nodedir=${NODE_DIR} PYTHON=/usr/bin/python3`, ''].join('\n'),
      );
      options.onLine?.(`Building the toolchain image ${tag} (the build stage: compilers, make, python3 from this machine)`);
      await engine.build(['--network', 'none', '-t', tag, '-f', path.join(context, 'Containerfile'), context], options);
      return tag;
    } finally {
      fs.rmSync(context, { recursive: true, force: true });
    }
  });
}
