// npm run build (also `prepare`, so a clone builds on `npm install`): the server compiled by
// tsc into dist/src and dist/generated (and the conformance suite into dist/test/conformance) — the package runs this JavaScript, never its
// TypeScript — and the dashboard built by Vite into dist/ui. `--out DIR` builds into another
// folder instead (the packaging test, which must not rebuild dist/ under running tests).
//
// The build is made in a fresh folder beside dist/ and swapped in when whole (two renames, a
// few microseconds apart), so a server running from this dist/ meanwhile never finds half of
// one (a run worker it starts, a module it loads late). A step that fails says which, why,
// and exits with its code; the old dist/ is then left as it was.
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BUILD_STAMP, buildStamp } from '../bin/compiledSources.js';
import { bundleServer } from './bundleServer.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const DIST = path.resolve(values.out ?? path.join(ROOT, 'dist'));
// before tsc reads a source: a file saved during the build counts as newer than dist/
const startedAt = Date.now();
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

// beside dist/ (the same file system, so a rename moves it), and never a folder another build uses
const BUILDING = `${DIST}.building-${process.pid}`;

/** Ends the build with `message` and `code`, leaving dist/ as it was. */
function fail(message: string, code: number): never {
  fs.rmSync(BUILDING, { recursive: true, force: true });
  console.error(`build: ${message}; ${path.relative(ROOT, DIST) || DIST} is left as it was`);
  process.exit(code);
}

function run(step: string, command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  const shown = `${path.basename(command)} ${args.join(' ')}`;
  // its own output (inherited) says what went wrong; this says which step, and why it did not start
  if (result.error)
    fail(
      `${step} could not start "${shown}": ${result.error.message}${(result.error as NodeJS.ErrnoException).code === 'ENOENT' ? ` (${command} is missing: the build needs agentplane's devDependencies, installed by "npm install" without NODE_ENV=production or --omit=dev)` : ''}`,
      1,
    );
  if (result.status !== 0)
    fail(`${step} failed: "${shown}" ${result.signal ? `was killed by ${result.signal}` : `exited with code ${result.status}`}`, result.status ?? 1);
}

/**
 * The compiler that emits dist/: TypeScript 7's native one (`typescript-7`) where its binary for
 * this platform is installed, since it emits the same JavaScript (only the quotes differ) in a
 * fifth of the CPU (~2 against ~13 CPU-s here) and every `npm ci` (`prepare`), image build and
 * packaging test builds; else TypeScript 5.9's (an install without optional packages, or a
 * platform TypeScript 7 does not ship). Named by path: node_modules/.bin/tsc may be either.
 */
function emittingTsc(): string {
  const native = path.join(ROOT, 'node_modules', 'typescript-7', 'bin', 'tsc');
  const binary = path.join(ROOT, 'node_modules', '@typescript', `typescript-${process.platform}-${process.arch}`);
  return fs.existsSync(native) && fs.existsSync(binary) ? native : path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
}

fs.rmSync(BUILDING, { recursive: true, force: true });
// a file deleted from src/ must not live on in dist/: the build starts from an empty folder
fs.mkdirSync(BUILDING, { recursive: true });
run('compiling the server (tsc)', emittingTsc(), ['-p', 'tsconfig.build.json', '--outDir', BUILDING]);

// the generated validators and documents are JavaScript already (typed by .d.ts files that
// tsc reads but does not emit): copied next to the compiled code that imports them
const copyJs = (from: string, to: string): void => {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyJs(source, path.join(to, entry.name));
    else if (entry.name.endsWith('.js')) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(source, path.join(to, entry.name));
    }
  }
};
copyJs(path.join(ROOT, 'generated'), path.join(BUILDING, 'generated'));
// the conformance suite (agentplane-server conformance) reads its list of excused outcomes
fs.copyFileSync(path.join(ROOT, 'test/conformance/coverage-exceptions.json'), path.join(BUILDING, 'test/conformance/coverage-exceptions.json'));

// the server's entry point and what it imports as a few ES modules (bin/agentplane.js runs them): scripts/bundleServer.ts
bundleServer(BUILDING).then(finish, (error: unknown) => fail(`bundling the server (esbuild) failed: ${(error as Error).message}`, 1));

/** The dashboard, the stamp, and the swap: the build's steps after the bundle. */
function finish(): void {
  run('building the dashboard (vite)', bin('vite'), ['build', '--config', 'ui/vite.config.ts', '--outDir', path.join(BUILDING, 'ui'), '--emptyOutDir']);
  // bin/agentplane.js runs this dist/ in a clone only while its sources are unchanged since
  fs.writeFileSync(path.join(BUILDING, BUILD_STAMP), JSON.stringify(buildStamp(ROOT, startedAt)));

  // whole: swapped in, the old one removed after (a server still reading it has what it opened)
  const previous = `${DIST}.previous-${process.pid}`;
  if (fs.existsSync(DIST)) fs.renameSync(DIST, previous);
  fs.renameSync(BUILDING, DIST);
  fs.rmSync(previous, { recursive: true, force: true });
}
