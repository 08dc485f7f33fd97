// npm run build (scripts/build.ts) in a clone whose tools are stand-ins (issue 65, point 4): it
// builds into a fresh folder and swaps it in whole, so dist/ stays complete while it builds (a
// server running from it keeps working); a step that fails or whose tool is missing says which
// step and why, and leaves dist/ as it was. Before, dist/src was deleted first and a missing
// tsc ended the build with exit 1 and no word.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../support/server.ts';

/**
 * Where the build runs each tool: TypeScript 7's tsc where its native binary for this platform is
 * installed (tsc7 and its binary's folder), else TypeScript 5.9's own (node_modules/.bin/tsc may be
 * either); Vite's bin link.
 */
const TOOL_PATHS: Record<string, string> = {
  tsc: 'node_modules/typescript/bin/tsc',
  tsc7: 'node_modules/typescript-7/bin/tsc',
  vite: 'node_modules/.bin/vite',
};
const NATIVE_BINARY = `node_modules/@typescript/typescript-${process.platform}-${process.arch}`;

/** A clone with the build script and an old dist/, and these stand-ins for its tools (none: no tools). */
function clone(tools: Record<string, string> = {}): string {
  const dir = tempDir('agentplane-build-script-');
  for (const file of ['scripts/build.ts', 'scripts/bundleServer.ts', 'bin/compiledSources.js']) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  }
  // the bundle step is the real one (esbuild on what the tsc stand-in wrote)
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules/esbuild'), path.join(dir, 'node_modules/esbuild'));
  fs.mkdirSync(path.join(dir, 'generated'));
  fs.mkdirSync(path.join(dir, 'test/conformance'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'test/conformance/coverage-exceptions.json'), '[]');
  fs.mkdirSync(path.join(dir, 'dist/src'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'dist/src/old.js'), '// the build before');
  for (const [name, script] of Object.entries(tools)) {
    const file = path.join(dir, TOOL_PATHS[name]);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
    if (name === 'tsc7') fs.mkdirSync(path.join(dir, NATIVE_BINARY), { recursive: true });
  }
  return dir;
}

const build = (dir: string) =>
  spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(dir, 'scripts/build.ts')], { cwd: dir, encoding: 'utf8' });

/** What is beside dist/ (a build's folders left behind would be). */
const besideDist = (dir: string) => fs.readdirSync(dir).filter((name) => name.startsWith('dist'));

// the stand-ins write what the real tools would into the folder they are given (the last argument for tsc, --outDir's for vite)
const TSC =
  'out="$4"; mkdir -p "$out/src" "$out/test/conformance"; if [ -f dist/src/old.js ]; then echo present > "$out/src/saw-old.txt"; fi; echo "// new" > "$out/src/main.js"; mkdir -p "$out/src/cli"; echo "export {};" > "$out/src/cli/main.js"';
const VITE = 'out="$5"; mkdir -p "$out"; echo "<html>" > "$out/index.html"';

describe('npm run build', () => {
  it('builds beside dist/ and swaps it in whole: dist/ is complete while it builds, and only the new build is left', () => {
    const dir = clone({ tsc: TSC, vite: VITE });
    const result = build(dir);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'dist/src/saw-old.txt'), 'utf8').trim(), 'present', 'the old dist/ was whole while tsc ran');
    assert.equal(fs.existsSync(path.join(dir, 'dist/src/old.js')), false, 'a file the build did not make is gone');
    assert.ok(fs.existsSync(path.join(dir, 'dist/src/main.js')));
    assert.ok(fs.existsSync(path.join(dir, 'dist/ui/index.html')));
    assert.ok(fs.existsSync(path.join(dir, 'dist/bundle/main.js')), 'the server is bundled (scripts/bundleServer.ts)');
    assert.ok(fs.existsSync(path.join(dir, 'dist/build-stamp.json')));
    assert.deepEqual(besideDist(dir), ['dist']);
  });

  it('says which step could not start, and why, when a tool is missing; dist/ is left as it was', () => {
    const dir = clone();
    const result = build(dir);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /build: compiling the server \(tsc\) could not start "tsc -p tsconfig\.build\.json --outDir .*": .*ENOENT.*devDependencies/);
    assert.match(result.stderr, /dist is left as it was/);
    assert.equal(fs.readFileSync(path.join(dir, 'dist/src/old.js'), 'utf8'), '// the build before');
    assert.deepEqual(besideDist(dir), ['dist']);
  });

  it('says which step failed, with its exit code, and leaves dist/ as it was', () => {
    const dir = clone({ tsc: TSC, vite: 'echo "vite: the dashboard does not compile" >&2; exit 2' });
    const result = build(dir);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /vite: the dashboard does not compile/);
    assert.match(result.stderr, /build: building the dashboard \(vite\) failed: "vite build --config ui\/vite\.config\.ts .*" exited with code 2/);
    assert.equal(fs.readFileSync(path.join(dir, 'dist/src/old.js'), 'utf8'), '// the build before');
    assert.equal(fs.existsSync(path.join(dir, 'dist/src/main.js')), false);
    assert.deepEqual(besideDist(dir), ['dist']);
  });

  it("emits with TypeScript 7 where its native binary is installed, else with TypeScript 5.9's tsc", () => {
    const say = (which: string) => `${TSC}; echo "${which}" > "$out/src/compiler.txt"`;
    const both = clone({ tsc: say('5.9'), tsc7: say('7'), vite: VITE });
    assert.equal(build(both).status, 0);
    assert.equal(fs.readFileSync(path.join(both, 'dist/src/compiler.txt'), 'utf8').trim(), '7');

    const withoutBinary = clone({ tsc: say('5.9'), tsc7: say('7'), vite: VITE });
    fs.rmSync(path.join(withoutBinary, NATIVE_BINARY), { recursive: true });
    assert.equal(build(withoutBinary).status, 0);
    assert.equal(fs.readFileSync(path.join(withoutBinary, 'dist/src/compiler.txt'), 'utf8').trim(), '5.9');
  });
});
