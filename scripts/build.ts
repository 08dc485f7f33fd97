// npm run build (also `prepare`, so a clone builds on `npm install`): the server compiled by
// tsc into dist/src and dist/generated (and the conformance suite into dist/test/conformance) — the package runs this JavaScript, never its
// TypeScript — and the dashboard built by Vite into dist/ui. `--out DIR` builds into another
// folder instead (the packaging test, which must not rebuild dist/ under running tests).
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BUILD_STAMP, buildStamp } from '../bin/compiledSources.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const DIST = path.resolve(values.out ?? path.join(ROOT, 'dist'));
// before tsc reads a source: a file saved during the build counts as newer than dist/
const startedAt = Date.now();
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// a file deleted from src/ must not live on in dist/
for (const dir of ['src', 'generated', 'test']) fs.rmSync(path.join(DIST, dir), { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', DIST]);

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
copyJs(path.join(ROOT, 'generated'), path.join(DIST, 'generated'));
// the conformance suite (agentplane-server conformance) reads its list of excused outcomes
fs.copyFileSync(path.join(ROOT, 'test/conformance/coverage-exceptions.json'), path.join(DIST, 'test/conformance/coverage-exceptions.json'));

run(bin('vite'), ['build', '--config', 'ui/vite.config.ts', '--outDir', path.join(DIST, 'ui'), '--emptyOutDir']);
// last: bin/agentplane.js runs this dist/ in a clone only while its sources are unchanged since
fs.writeFileSync(path.join(DIST, BUILD_STAMP), JSON.stringify(buildStamp(ROOT, startedAt)));
