// The flame graph drawn from a .cpuprofile (scripts/bench/flame.ts), with a made-up profile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameTree, heapAsProfile, mainThreadFile, renderFlameGraph, type CpuProfile, type HeapNode } from '../../scripts/bench/flame.ts';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({ id, callFrame: { functionName, url, lineNumber: 0 }, children });
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 5]),
    frame(2, 'handle', 'file:///app/src/runtime/transports/http/pipeline.ts', [3, 4]),
    frame(3, 'stringify', 'file:///app/node_modules/fast-json-stringify/index.js'),
    frame(4, 'readRecord', 'file:///app/src/backends/embedded/journalStore.ts'),
    frame(5, '(idle)', ''),
  ],
  // handle itself 100 µs, stringify 300, readRecord 100, idle 1000
  samples: [2, 3, 3, 3, 4, 5],
  timeDeltas: [100, 100, 100, 100, 100, 1000],
};

test("a frame is as wide as its own time and its callees', idle left out", () => {
  const root = frameTree(profile);
  assert.equal(root.total, 500);
  const [handle] = root.children;
  assert.equal(handle.name, 'handle');
  assert.equal(handle.total, 500);
  assert.deepEqual(
    handle.children.map((c) => [c.name, c.total]),
    [
      ['stringify', 300],
      ['readRecord', 100],
    ],
    'widest first',
  );
});

test('the SVG has one box per frame, widths in proportion, dependencies and our sources told apart', () => {
  const svg = renderFlameGraph(profile, 'a <test>');
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.ok(svg.includes('a &lt;test&gt;'), 'text is escaped');
  const boxes = [...svg.matchAll(/<title>([^<]*)<\/title><rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"[^>]*fill="([^"]+)"/g)].map((m) => ({
    tip: m[1],
    x: Number(m[2]),
    y: Number(m[3]),
    width: Number(m[4]),
    fill: m[5],
  }));
  assert.equal(boxes.length, 4, 'root, handle, stringify, readRecord; no idle');
  const of = (name: string) => boxes.find((b) => b.tip.startsWith(name))!;
  assert.equal(of('stringify').width, 720, '300 of 500 µs of 1200 px');
  assert.equal(of('readRecord').x, 720);
  assert.ok(of('stringify').y < of('handle').y, 'callees above their callers');
  assert.equal(of('stringify').fill, '#f59e0b');
  assert.equal(of('handle').fill, '#60a5fa');
  assert.match(of('stringify').tip, /stringify fast-json-stringify: 0\.3 ms, 60\.0%/);
});

test('a heap profile is drawn by the bytes each allocation site still holds, in MB', () => {
  const at = (id: number, functionName: string, selfSize: number, children: HeapNode[] = []): HeapNode => ({
    id,
    callFrame: { functionName, url: 'file:///app/src/store.ts', lineNumber: 0 },
    selfSize,
    children,
  });
  const profile = heapAsProfile(at(1, '(root)', 0, [at(2, 'insert', 1048576, [at(3, 'copy', 3 * 1048576)]), at(4, 'parse', 0)]));
  const root = frameTree(profile);
  assert.equal(root.total, 4 * 1048576);
  assert.deepEqual(
    root.children.map((c) => [c.name, c.total]),
    [['insert', 4 * 1048576]],
    'a site that holds nothing is left out',
  );
  const svg = renderFlameGraph(profile, 'held', { per: 1048576, name: 'MB', total: 'held' });
  assert.match(svg, /held — 4 MB held<\/text>/);
  assert.match(svg, /<title>copy src\/store\.ts: 3\.0 MB, 75\.0%<\/title>/);
});

test("a process's main-thread profile is told from its workers', and its absence is an error", () => {
  assert.equal(mainThreadFile(['CPU.1.2.77.1.002.cpuprofile', 'CPU.1.2.77.0.001.cpuprofile'], '/p'), 'CPU.1.2.77.0.001.cpuprofile');
  assert.equal(mainThreadFile(['Heap.1.2.77.0.001.heapprofile'], '/p'), 'Heap.1.2.77.0.001.heapprofile');
  assert.throws(() => mainThreadFile(['CPU.1.2.77.1.002.cpuprofile'], '/p'), /no main-thread profile in \/p/);
});
