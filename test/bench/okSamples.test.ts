// The fan-out phase's `/ok` samples set beside the server's record of them (issue 87): what each
// waited for — the server's loop before it read the request, the server, the client after. And
// what the server's scavenges copy: the bytes (loopGaps.mjs), and the objects a heap holds that it
// did not at an earlier snapshot, named by who holds them (heapNewObjects.ts, fanoutSurvivors.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attribute, copiedReport, okReport, quantile } from '../../scripts/bench/okSamples.ts';
import { getHeapSnapshot } from 'node:v8';
import { idsOf, newObjects, newObjectsReport, type HeapSnapshot } from '../../scripts/bench/heapNewObjects.ts';

test('a sample is split at the server’s read and answer, each part beside what overlapped it', () => {
  const [s] = attribute(
    [[1_000, 31_000]],
    // an earlier request's record, then this one's
    [
      [500, 600],
      [21_000, 22_000],
    ],
    [{ from: 5_000, to: 15_000, kind: 'scavenge' }],
    // a server turn of 20 ms, half of it before the read
    [[1_000, 21_000, 8_000, 10_000]],
    [[25_000, 30_000, 2_000, 1_000]],
  );
  assert.deepEqual(s, {
    total: 30_000,
    before: 20_000,
    in: 1_000,
    after: 9_000,
    gc: { scavenge: 10_000 },
    serverCpu: 8_000,
    serverWait: 10_000,
    serverBlocked: 2_000,
    clientCpu: 2_000,
    clientWait: 1_000,
    unmatched: false,
  });
});

test('a turn is counted by the share of it inside the wait, and a sample the server has no record of says so', () => {
  const [half, none] = attribute(
    [
      [0, 10_000],
      [20_000, 25_000],
    ],
    [[5_000, 6_000]],
    [],
    [[0, 10_000, 4_000, 2_000]],
    [],
  );
  assert.equal(half!.serverCpu, 2_000);
  assert.equal(half!.serverWait, 1_000);
  assert.equal(none!.unmatched, true);
  assert.equal(none!.before, 5_000);
});

test('the report’s p99 is the bench’s, and without the samples a collection overlapped', () => {
  assert.equal(quantile([5, 1, 4, 2, 3], 0.99), 5);
  assert.equal(quantile([5, 1, 4, 2, 3], 0.5), 3);
  const samples = attribute(
    Array.from({ length: 100 }, (_, i) => [i * 100_000, i * 100_000 + (i === 7 ? 50_000 : 1_000 + i)] as const),
    [],
    [{ from: 700_000, to: 740_000, kind: 'scavenge' }],
    [],
    [],
  );
  const [summary] = okReport(samples);
  assert.match(summary!, /p99 50 ms/);
  assert.match(summary!, /a collection overlapped 1 of them/);
  assert.match(summary!, /without those, p99 1\.1 ms/);
});

test('a window’s scavenges are reported by the bytes they copied: count, median, largest, in all', () => {
  assert.equal(copiedReport([]), 'scavenges copied: none recorded');
  assert.equal(copiedReport([4_040_000, 1_000_000, 7_800_000]), 'scavenges copied (survived + promoted): 3, median 4.04 MB, largest 7.8 MB, 12.84 MB in all');
  assert.equal(
    copiedReport([4_040_000, 1_000_000, 7_800_000], [1_600_000, 200_000, 3_000_000], [15_000_000, 14_000_000, 16_000_000]),
    'scavenges copied (survived + promoted): 3, median 4.04 MB, largest 7.8 MB, 12.84 MB in all; of it promoted, median 1.6 MB; young generation when it began, median 15 MB',
  );
});

// the server's loop recorder (loopGaps.mjs, loaded with --import): each scavenge's bytes copied, a count independent of the machine's load

interface Stats {
  heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[];
}
// a plain .mjs (the server loads it with --import): typed here as used, found from this file's
// source (npm test runs a compiled copy elsewhere, where import.meta.url still names the source)
const recorder = new URL('../../scripts/bench/loopGaps.mjs', import.meta.url).href;
const { recordLoop, scavengeCopied, scavengeParts } = (await import(recorder)) as {
  recordLoop(minWallUs: number, options: { copies: boolean }): { snapshot(): { copies: [number, number, number, number][] } };
  scavengeCopied(stat: { gcType: string; beforeGC: Stats; afterGC: Stats }): number | undefined;
  scavengeParts(stat: { gcType: string; beforeGC: Stats; afterGC: Stats }): [number, number] | undefined;
};

const space = (spaceName: string, spaceUsedSize: number) => ({ spaceName, spaceUsedSize });

test('a scavenge copied what survived in the young generation and what it promoted; other collections are not counted', () => {
  const beforeGC = { heapSpaceStatistics: [space('new_space', 9_000_000), space('old_space', 50_000_000), space('large_object_space', 1_000_000)] };
  const afterGC = { heapSpaceStatistics: [space('new_space', 2_500_000), space('old_space', 51_500_000), space('large_object_space', 1_000_000)] };
  assert.equal(scavengeCopied({ gcType: 'Scavenge', beforeGC, afterGC }), 4_000_000);
  // old spaces that shrank (a sweep freed pages meanwhile) promote nothing
  assert.equal(scavengeCopied({ gcType: 'Scavenge', beforeGC: afterGC, afterGC: beforeGC }), 9_000_000);
  assert.equal(scavengeCopied({ gcType: 'MarkSweepCompact', beforeGC, afterGC }), undefined);
  // of it promoted, and the young generation it began with
  assert.deepEqual(scavengeParts({ gcType: 'Scavenge', beforeGC, afterGC }), [1_500_000, 9_000_000]);
  assert.deepEqual(scavengeParts({ gcType: 'Scavenge', beforeGC: afterGC, afterGC: beforeGC }), [0, 2_500_000]);
  assert.equal(scavengeParts({ gcType: 'MarkSweepCompact', beforeGC, afterGC }), undefined);
});

test('the recorder keeps each scavenge’s bytes copied when asked', async () => {
  const loop = recordLoop(30_000, { copies: true });
  // young garbage with a part kept alive, until a scavenge has been recorded
  const kept: number[][] = [];
  for (let round = 0; round < 200 && loop.snapshot().copies.length === 0; round += 1) {
    for (let i = 0; i < 20_000; i += 1) {
      const a = [i, i + 1, i + 2];
      if (i % 10 === 0) kept.push(a);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { copies } = loop.snapshot();
  assert.ok(copies.length > 0, 'a scavenge recorded');
  for (const [at, bytes, promoted, young] of copies) assert.ok(at > 0 && bytes > 0 && promoted >= 0 && promoted <= bytes && young > 0);
  assert.ok(kept.length > 0);
});

async function snapshot(): Promise<HeapSnapshot> {
  const chunks: string[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(chunk.toString());
  return JSON.parse(chunks.join('')) as HeapSnapshot;
}

class Keeper {
  readonly kept = new Map<number, object>();
}

class Kept {
  constructor(readonly text: string) {}
}

test('objects made between two snapshots and still held are given to the holder they hang from', async () => {
  const keeper = new Keeper();
  keeper.kept.set(0, new Kept('before'));
  const first = idsOf(await snapshot());
  for (let i = 1; i <= 500; i += 1) keeper.kept.set(i, new Kept(`kept ${i} ${'x'.repeat(100)}`));
  // made and dropped in between: not in the second snapshot
  for (let i = 0; i < 500; i += 1) new Kept(`dropped ${i}`);
  const found = newObjects(first, await snapshot());

  const kept = found.byKind.find((row) => row.kind === 'object:Kept');
  assert.equal(kept?.count, 500, 'each Kept made since the first snapshot, and only those held');
  // (a few may hang from the stack's roots: the loop's last, say)
  const keptBytes = (row: (typeof found.byOwner)[number]) => row.kinds.find(([kind]) => kind === 'object:Kept')?.[1] ?? 0;
  const owner = [...found.byOwner].sort((a, b) => keptBytes(b) - keptBytes(a))[0];
  assert.ok(owner && keptBytes(owner) > 0, 'an owner holds the new Kept objects');
  assert.match(owner.owner, /object:Keeper > kept > object:Map/, 'named by the old holder and its field');
  assert.ok(owner.count >= 1000, 'the Kept objects and their texts under the one owner');
  assert.ok(found.bytes >= owner.bytes && owner.bytes >= 500 * 100, 'their bytes counted, the texts included');
  assert.ok(
    newObjectsReport(found).some((line) => line.includes('object:Keeper > kept')),
    'the report names the owner',
  );
  assert.ok(keeper.kept.size === 501);
});
