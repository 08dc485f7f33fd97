// The fan-out phase's `/ok` samples set beside the server's record of them (issue 87): what each
// waited for — the server's loop before it read the request, the server, the client after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attribute, copiedReport, okReport, quantile } from '../../scripts/bench/okSamples.ts';

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
});

// the server's loop recorder (loopGaps.mjs, loaded with --import): each scavenge's bytes copied, a count independent of the machine's load

interface Stats {
  heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[];
}
// a plain .mjs (the server loads it with --import): typed here as used, found from this file's
// source (npm test runs a compiled copy elsewhere, where import.meta.url still names the source)
const recorder = new URL('../../scripts/bench/loopGaps.mjs', import.meta.url).href;
const { recordLoop, scavengeCopied } = (await import(recorder)) as {
  recordLoop(minWallUs: number, options: { copies: boolean }): { snapshot(): { copies: [number, number][] } };
  scavengeCopied(stat: { gcType: string; beforeGC: Stats; afterGC: Stats }): number | undefined;
};

const space = (spaceName: string, spaceUsedSize: number) => ({ spaceName, spaceUsedSize });

test('a scavenge copied what survived in the young generation and what it promoted; other collections are not counted', () => {
  const beforeGC = { heapSpaceStatistics: [space('new_space', 9_000_000), space('old_space', 50_000_000), space('large_object_space', 1_000_000)] };
  const afterGC = { heapSpaceStatistics: [space('new_space', 2_500_000), space('old_space', 51_500_000), space('large_object_space', 1_000_000)] };
  assert.equal(scavengeCopied({ gcType: 'Scavenge', beforeGC, afterGC }), 4_000_000);
  // old spaces that shrank (a sweep freed pages meanwhile) promote nothing
  assert.equal(scavengeCopied({ gcType: 'Scavenge', beforeGC: afterGC, afterGC: beforeGC }), 9_000_000);
  assert.equal(scavengeCopied({ gcType: 'MarkSweepCompact', beforeGC, afterGC }), undefined);
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
  for (const [at, bytes] of copies) assert.ok(at > 0 && bytes > 0);
  assert.ok(kept.length > 0);
});
