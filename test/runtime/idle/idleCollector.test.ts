// A busy spell's garbage is collected once the server is idle, once; never while it is busy,
// and never again until the heap has grown again (an idle server is left alone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { IDLE_RELEASE, IDLE_REST, IdleCollection, IdleRelease, closingSettings, type IdleCollectionSettings } from '../../../src/runtime/idle/idleCollector.ts';
import { ROOT } from '../../support/server.ts';
import { childImport } from '../../support/childImports.ts';

const MB = 1024 * 1024;
const settings: IdleCollectionSettings = { growthBytes: 16 * MB, idleMs: 3_000, idleShareOfACore: 0.05 };
const busy = 500; // ms of CPU in a 1 s sample
const idle = 10;

test('collects after the heap grew and the process was idle for idleMs, then not again until it grows again', () => {
  const rule = new IdleCollection(settings);
  assert.equal(rule.sample(1000, idle, 80 * MB), false, 'the first sample is the baseline');
  // a burst: the heap grows while the process is busy
  for (const heap of [100, 130, 140]) assert.equal(rule.sample(1000, busy, heap * MB), false, 'never while busy');
  assert.equal(rule.sample(1000, idle, 140 * MB), false, 'idle for 1 s');
  assert.equal(rule.sample(1000, idle, 140 * MB), false, 'idle for 2 s');
  assert.equal(rule.sample(1000, idle, 140 * MB), true, 'idle for 3 s after growth: collect');
  rule.collected(90 * MB);
  for (let i = 0; i < 20; i += 1) assert.equal(rule.sample(1000, idle, 95 * MB), false, 'idle without new growth: left alone');
  assert.equal(rule.sample(1000, busy, 120 * MB), false);
  for (let i = 0; i < 2; i += 1) assert.equal(rule.sample(1000, idle, 120 * MB), false);
  assert.equal(rule.sample(1000, idle, 120 * MB), true, 'grown by 30 MB since the last collection, idle again: collect');
});

test('a moment of activity starts the idle wait over; growth under growthBytes is not worth a collection', () => {
  const rule = new IdleCollection(settings);
  rule.sample(1000, idle, 50 * MB);
  rule.sample(1000, idle, 100 * MB);
  rule.sample(1000, idle, 100 * MB);
  assert.equal(rule.sample(1000, 60, 100 * MB), false, '6% of a core is not idle');
  assert.equal(rule.sample(1000, idle, 100 * MB), false);
  assert.equal(rule.sample(1000, idle, 100 * MB), false);
  assert.equal(rule.sample(1000, idle, 100 * MB), true);
  const small = new IdleCollection(settings);
  small.sample(1000, idle, 50 * MB);
  for (let i = 0; i < 10; i += 1) assert.equal(small.sample(1000, idle, 60 * MB), false, '10 MB of growth');
});

test('the collection is had without --expose-gc, and leaves no gc global to the code that runs after it (here, and in a worker)', () => {
  const collector = childImport('src/runtime/idle/idleCollector.ts');
  const script = `
    const { fullCollection, youngCollection } = await import(${JSON.stringify(collector.url)});
    const { Worker } = await import('node:worker_threads');
    const gc = fullCollection();
    let junk = Array.from({ length: 300_000 }, (_, i) => ({ i }));
    junk = undefined;
    const before = process.memoryUsage().heapUsed;
    gc();
    const after = process.memoryUsage().heapUsed;
    const young = youngCollection();
    young();
    const inWorker = await new Promise((resolve) => new Worker('import("node:worker_threads").then((m) => m.parentPort.postMessage(typeof globalThis.gc))', { eval: true }).once('message', resolve));
    console.log(JSON.stringify({ gc: typeof gc, young: typeof young, freedMb: Math.round((before - after) / 1048576), here: typeof globalThis.gc, inWorker }));
  `;
  const out = spawnSync(process.execPath, [...collector.flags, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  const seen = JSON.parse(out.stdout.trim().split('\n').at(-1)!);
  assert.equal(seen.gc, 'function');
  assert.equal(seen.young, 'function', 'the young generation’s collection is had the same way');
  assert.ok(seen.freedMb >= 5, `a full collection freed the dropped objects (${seen.freedMb} MB)`);
  assert.equal(seen.here, 'undefined');
  assert.equal(seen.inWorker, 'undefined');
});

test("by default, the garbage a store's snapshot leaves on an idle server (~10 MB after runs on a long history) is collected (issue 91)", () => {
  const rule = new IdleCollection();
  rule.sample(1000, idle, 126 * MB);
  rule.sample(1000, busy, 138 * MB);
  assert.equal(rule.sample(1000, idle, 136 * MB), false);
  assert.equal(rule.sample(1000, idle, 136 * MB), false);
  assert.equal(rule.sample(1000, idle, 136 * MB), true, 'grown by 10 MB, idle for 3 s: collect');
});

test('the caches are released once the process has been idle idleMs, once a spell; activity starts the spell over (issue 86)', () => {
  const rule = new IdleRelease({ idleMs: 20_000, idleShareOfACore: 0.05 });
  for (let i = 0; i < 5; i += 1) assert.equal(rule.sample(1000, busy), false, 'never while busy');
  for (let i = 0; i < 19; i += 1) assert.equal(rule.sample(1000, idle), false, `idle for ${i + 1} s`);
  assert.equal(rule.sample(1000, idle), true, 'idle for 20 s: release');
  for (let i = 0; i < 60; i += 1) assert.equal(rule.sample(1000, idle), false, 'once a spell');
  assert.equal(rule.sample(1000, busy), false);
  for (let i = 0; i < 19; i += 1) assert.equal(rule.sample(1000, idle), false);
  assert.equal(rule.sample(1000, idle), true, 'a new spell: released again');
  assert.deepEqual(IDLE_RELEASE, { idleMs: 20_000, idleShareOfACore: 0.05 }, 'by default 20 s, before an idle run worker retires (30 s)');
});

test("an idle process's young generation is shrunk once it has been idle a rest's time, which V8 alone left at its grown size (issue 91)", () => {
  const collector = childImport('src/runtime/idle/idleCollector.ts');
  // a busy stretch whose survivors grow the young generation (at once to its largest, as a
  // server's growth factor has it), then idle: V8 makes no collection of its own to shrink it
  const script = `
    const { startIdleCollector, IDLE_COLLECTION, IDLE_RELEASE } = await import(${JSON.stringify(collector.url)});
    const v8 = await import('node:v8');
    const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    let keep = [];
    for (let i = 0; i < 400; i += 1) {
      keep.push(Array.from({ length: 5000 }, (_, j) => ({ j })));
      if (keep.length > 40) keep.shift();
    }
    keep = undefined;
    const grown = newSpace();
    // the rest's share is 1 (any sample idle): what counts as idle is IdleRelease's, tested above; here,
    // that the rest's scavenge gives the young generation back (npm test at full load failed the
    // 5% share within 20 s, not reproduced beside three busy loops)
    // 8 s: the busy stretch closed at 2 s, V8's 5-s window of low allocation after it
    const stopped = startIdleCollector(IDLE_COLLECTION, undefined, IDLE_RELEASE, { idleMs: 8000, idleShareOfACore: 1 });
    // polled, not one fixed wait: under CI's load (lint and format beside) the idle spell began
    // later than 2 s after the collector's start, and an 8-s wait ended before it (stop 110)
    const deadline = Date.now() + 20000;
    while (newSpace() > grown / 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
    stopped.stop();
    console.log(JSON.stringify({ grown, rested: newSpace() }));
  `;
  const out = spawnSync(process.execPath, [...collector.flags, '--semi-space-growth-factor=16', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(out.status, 0, out.stderr);
  const { grown, rested } = JSON.parse(out.stdout.trim().split('\n').at(-1)!) as { grown: number; rested: number };
  assert.ok(grown >= 8 * MB, `the busy stretch grew the young generation (${grown} bytes)`);
  assert.ok(rested <= grown / 4, `idle 8 s and more: shrunk (${grown} -> ${rested} bytes)`);
  assert.deepEqual(IDLE_REST, { idleMs: 10_000, idleShareOfACore: 0.05 }, 'by default 10 s: past V8’s 5-s window of low allocation');
});

test('the scavenge that closes the busy stretch comes V8’s window (and a second) before the rest’s, a sample after the spell’s start at the earliest', () => {
  // plain node made no collection after the busy stretch's last: the rest's scavenge alone read the
  // stretch's tail as the idle seconds' allocation, and kept the young generation grown (stop 109)
  assert.deepEqual(closingSettings(IDLE_REST), { idleMs: 4_000, idleShareOfACore: 0.05 });
  assert.deepEqual(closingSettings({ idleMs: 3_000, idleShareOfACore: 1 }), { idleMs: 1_000, idleShareOfACore: 1 });
});
