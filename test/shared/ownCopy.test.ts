import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assignOwn } from '../../src/shared/ownCopy.ts';
import { withRunMetadata } from '../../src/domain/agent/checkpoints/checkpointer.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('assignOwn copies what a spread copies, in its order', () => {
  const symbol = Symbol('s');
  const hidden = Symbol('hidden');
  const source: Record<PropertyKey, unknown> = JSON.parse('{"b":1,"__proto__":{"polluted":true},"2":"two","a":[1]}');
  source[symbol] = 'sym';
  Object.defineProperty(source, hidden, { value: 'no', enumerable: false });
  Object.defineProperty(source, 'quiet', { value: 'no', enumerable: false });
  const spread = { x: 0, ...source, ...{ b: 2 } };
  const assigned = assignOwn(assignOwn({ x: 0 }, source), { b: 2 });
  assert.deepEqual(Reflect.ownKeys(assigned), Reflect.ownKeys(spread));
  assert.deepEqual(assigned, spread);
  assert.equal(Object.getPrototypeOf(assigned), Object.prototype);
  assert.equal((assigned as Record<string, unknown>).polluted, undefined);
  assert.equal(assignOwn({ x: 1 }, undefined).x, 1);
  assert.equal(assignOwn({ x: 1 }, null).x, 1);
});

test('withRunMetadata merges the configurable, the run metadata and the checkpoint metadata as before', () => {
  const config = {
    configurable: { checkpoint_ns: '', 'user-agent': 'sdk', run_id: 'r', thread_id: 't', graph_id: 'g', __pregel_x: 1, fn: () => 1, checkpoint_id: 'c' },
    metadata: { created_by: 'system', graph_id: 'meta-g', run_attempt: 1 },
  };
  const merged = withRunMetadata(config, { source: 'loop', step: 2, parents: {} });
  assert.deepEqual(Object.keys(merged), ['user-agent', 'graph_id', 'created_by', 'run_attempt', 'source', 'step', 'parents']);
  assert.deepEqual(merged, { 'user-agent': 'sdk', graph_id: 'meta-g', created_by: 'system', run_attempt: 1, source: 'loop', step: 2, parents: {} });
});

// A spread followed by more keys gives each result a hidden class of its own once the site has run
// a few times (Node 20's V8): every checkpoint's metadata allocated maps into the old generation.
test('withRunMetadata results share one hidden class', () => {
  const script = `
    const { withRunMetadata } = await import(${JSON.stringify(path.join(ROOT, 'src/domain/agent/checkpoints/checkpointer.ts'))});
    const one = (i) => withRunMetadata(
      { configurable: { 'user-agent': 'sdk', thread_id: 't' + i, graph_id: 'g' }, metadata: { created_by: 'system', run_id: 'r' + i, run_attempt: 1 } },
      { source: 'loop', step: i, parents: {} },
    );
    let last = one(0), shared = 0;
    for (let i = 1; i < 50; i += 1) { const next = one(i); if (%HaveSameMap(last, next)) shared += 1; last = next; }
    console.log(shared);`;
  const child = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), '49');
});
