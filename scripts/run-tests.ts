// Runs node's test runner over every *.test.ts under the given folders (default: test/).
// Node 20's runner does not expand ** itself, so the files are listed here.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const find = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'fixtures' ? [] : find(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
const files = (roots.length ? roots : ['test']).flatMap((r) => (fs.statSync(r).isDirectory() ? find(r) : [r])).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const runTests = (list: string[], env: Record<string, string> = {}) =>
  spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, ...flags, ...list],
    // every server the suite starts (in process, child, CLI) answers 500 to a reply that does not fit its schema
    { stdio: 'inherit', env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', AGENTPLANE_VALIDATE_RESPONSES: process.env.AGENTPLANE_VALIDATE_RESPONSES ?? '1', ...env } },
  ).status ?? 1;

// The suites of runs, streams, cancellation and restarts pass with graphs in worker threads
// (the default) and, once more in a full run, with AGENTPLANE_RUN_WORKERS=0 (graphs on the
// request loop, the debugging mode), so neither way of executing drifts from the other.
const IN_PROCESS_SUITES = ['sdk-runs', 'sdk-runs-client', 'sdk-stream-modes', 'restart', 'graphs'].map((name) => path.join('test', 'agent-server', `${name}.test.ts`));
const fullRun = roots.length === 0 || (roots.length === 1 && path.normalize(roots[0]) === 'test');
let status = runTests(files);
if (fullRun && !process.env.AGENTPLANE_RUN_WORKERS) {
  console.log('\n# the run suites again with AGENTPLANE_RUN_WORKERS=0 (graphs on the request loop)\n');
  status = runTests(IN_PROCESS_SUITES, { AGENTPLANE_RUN_WORKERS: '0' }) || status;
}
process.exit(status);
