// What a run worker loads before it says it is ready (loadRunModules), so the first run does
// not pay for it before its first token (issue 89): the run spans' OpenTelemetry SDK, required on
// first use (~0.05 s of a core), and LangGraph and the memory store, imported by the first run.
// Checked in a process of its own: this test process may have loaded them already.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { ROOT } from '../../../support/server.ts';

const probe = `
import { createRequire } from 'node:module';
const { loadRunModules } = await import('./src/domain/agent/graphs/graphRunners.ts');
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/@opentelemetry/sdk-trace-base/'));
const before = loaded();
await loadRunModules();
console.log(JSON.stringify({ before, after: loaded() }));
`;

test('loadRunModules requires the run spans’ OpenTelemetry SDK ahead of the first run', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1)!), { before: false, after: true });
});
