// Fails when generated/ is not what spec/ produces now: regenerates into a temporary folder
// and compares every file. CI runs this before the tests.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { processTempDir } from '../src/shared/processTempDir.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const committed = path.join(root, 'generated');
// removed at exit: the failure below ends the process before the finally
const fresh = processTempDir('agentplane-generated-');

const list = (dir: string, base = dir): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? list(path.join(dir, e.name), base) : [path.relative(base, path.join(dir, e.name))]))
    : [];

try {
  execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/generate.ts'), fresh], { cwd: root, stdio: 'inherit' });
  const want = new Set(list(fresh));
  const have = new Set(list(committed));
  const problems: string[] = [];
  for (const f of want) {
    if (!have.has(f)) problems.push(`missing: generated/${f}`);
    else if (!fs.readFileSync(path.join(fresh, f)).equals(fs.readFileSync(path.join(committed, f)))) problems.push(`stale: generated/${f}`);
  }
  for (const f of have) if (!want.has(f)) problems.push(`not produced by the spec any more: generated/${f}`);
  if (problems.length) {
    console.error(`generated/ does not match spec/ — run \`npm run generate\` and commit:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`generated/ is current (${want.size} files)`);
} finally {
  fs.rmSync(fresh, { recursive: true, force: true });
}
