// The base image of every agentplane image carries what prebuilt native addons load (issue 65,
// point 4): npm installs them for this platform (rolldown's binding, which Vite's build needs,
// lightningcss's, tailwind's oxide, swc's) and they link against the usual glibc system, not
// only the part of it Node.js links. Before, the base had node's libraries only, and Vite's
// build in an image of agentplane's own checkout failed: rolldown's binding needs librt.so.1.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../support/server.ts';
import { baseImageInputs } from '../../../src/adapters/images/baseImage.ts';

const NODE_MODULES = fs.realpathSync(path.join(ROOT, 'node_modules'));

/** Every native addon (`*.node`) installed in agentplane's own node_modules. */
function nativeAddons(dir = NODE_MODULES): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return nativeAddons(file);
    return entry.isFile() && entry.name.endsWith('.node') ? [file] : [];
  });
}

/** The names of the libraries a binary asks the loader for (`ldd`'s left column; the kernel's vDSO is no file). */
const neededLibraries = (binary: string): string[] =>
  execFileSync('ldd', [binary], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0]!)
    .filter((name) => name && !name.startsWith('linux-vdso'))
    .map((name) => path.basename(name));

describe('the base image’s libraries', () => {
  const inBase = new Set(baseImageInputs(process.execPath).libraries.map((file) => path.basename(file)));

  it('include every library the native addons npm installed here load (rolldown’s binding: librt.so.1, which node does not link)', () => {
    const addons = nativeAddons();
    assert.ok(
      addons.some((file) => file.includes('rolldown-binding')),
      `rolldown's binding (Vite's bundler) is installed: ${addons.join(', ')}`,
    );
    for (const addon of addons) {
      const missing = neededLibraries(addon).filter((name) => !inBase.has(name));
      assert.deepEqual(missing, [], `node_modules/${path.relative(NODE_MODULES, addon)} loads libraries the base image lacks`);
    }
  });

  it('are glibc’s whole set beside the C library node runs with, and the GCC runtime', () => {
    const libc = baseImageInputs(process.execPath).libraries.find((file) => path.basename(file) === 'libc.so.6');
    assert.ok(libc, 'node links glibc here');
    for (const name of ['librt.so.1', 'libm.so.6', 'libpthread.so.0', 'libdl.so.2', 'libresolv.so.2', 'libgcc_s.so.1', 'libstdc++.so.6']) {
      assert.ok(inBase.has(name), `${name} is in the base image`);
    }
    // taken from the C library's own folder, so each matches the libc it runs with
    const rt = baseImageInputs(process.execPath).libraries.find((file) => path.basename(file) === 'librt.so.1')!;
    assert.equal(path.dirname(rt), path.dirname(libc));
  });
});
