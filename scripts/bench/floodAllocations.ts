// What the server's main thread allocates while a tenant floods it (issue 83): the young
// generation's scavenges pause the event loop for milliseconds each, and under A's flood they came
// once or twice a B spell, so B's p99 was a scavenge when two of them met B's reads. The rig of
// scripts/bench/tenantFlood.ts floods for `FLOOD_MS` (10 s) while V8's sampling heap profiler
// records every allocation, those the next scavenge collects included; the bytes are then summed
// by the first of our modules on each allocation's stack (src/…), else the allocating function,
// with the scavenges the flood took and the bytes allocated per request A sent.
//
//   npx tsx scripts/bench/floodAllocations.ts [top]
//
// FLOOD_KINDS, FLOOD_KEYLESS, FLOOD_IN_MEMORY as scripts/bench/tenantFlood.ts; FLOOD_LEAFMOST=1
// sums by the innermost of our functions instead.
import { Session } from 'node:inspector/promises';
import { floodRig } from '../../test/support/tenantFlood.ts';
import { recordGcPauses } from '../../test/support/gcPauses.ts';
import type { FloodKind } from '../../test/support/floodClient.ts';
import type { HeapNode } from './flame.ts';

const FLOOD_MS = Number(process.env.FLOOD_MS ?? 10_000);
const top = Number(process.argv[2] ?? 25);
const rig = await floodRig({
  inMemory: Boolean(process.env.FLOOD_IN_MEMORY),
  keylessSockets: process.env.FLOOD_KEYLESS ? Number(process.env.FLOOD_KEYLESS) : undefined,
  kinds: process.env.FLOOD_KINDS ? (process.env.FLOOD_KINDS.split(',') as FloodKind[]) : undefined,
});
const session = new Session();
session.connect();
const gc = recordGcPauses();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const from = Number(process.hrtime.bigint() / 1000n);
await rig.flood.resume();
await new Promise((resolve) => setTimeout(resolve, FLOOD_MS));
const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: HeapNode } };
const to = Number(process.hrtime.bigint() / 1000n);
const sent = await rig.flood.sent();
await rig.flood.pause();
const report = await rig.close();
gc.stop();

const bytes = new Map<string, number>();
let total = 0;
const walk = (node: HeapNode, ours: string | null) => {
  const frame = node.callFrame;
  const mine = frame.url.includes('/src/') ? `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/src\//, 'src/')}` : null;
  const label = process.env.FLOOD_LEAFMOST ? (mine ?? ours) : (ours ?? mine);
  if (node.selfSize > 0) {
    const key = label ?? `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/node_modules\//, '')}`.trim();
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const child of node.children) walk(child, label);
};
walk(profile.head, null);
// FLOOD_FOCUS=<function name>: where that function's allocations were made from (its callers, three deep)
const callers = new Map<string, number>();
const focus = (node: HeapNode, stack: string[]) => {
  const frame = node.callFrame;
  const here = [...stack, `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(src|node_modules)\//, '')}:${frame.lineNumber + 1}`];
  if (frame.functionName === process.env.FLOOD_FOCUS) {
    const sum = (n: HeapNode): number => n.selfSize + n.children.reduce((t, c) => t + sum(c), 0);
    const key = here.slice(-4).join(' < ');
    callers.set(key, (callers.get(key) ?? 0) + sum(node));
    return;
  }
  for (const child of node.children) focus(child, here);
};
if (process.env.FLOOD_FOCUS) focus(profile.head, []);
const mb = (n: number) => Math.round((n / 1e6) * 10) / 10;
const tally = gc.tally(from, to);
console.log(
  JSON.stringify(
    {
      flood_ms: FLOOD_MS,
      allocated_mb: mb(total),
      requests_sent: sent.requests,
      keyless_refused: sent.keylessRefused,
      kb_per_request: Math.round(total / 1e3 / Math.max(1, sent.requests + sent.keylessRefused)),
      scavenges: tally.minor,
      scavenge_ms: Math.round(tally.minorMs),
      max_scavenge_ms: Math.round(tally.maxMinorMs * 10) / 10,
      answers: report.statuses,
    },
    null,
    2,
  ),
);
for (const [label, n] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${String(mb(n)).padStart(7)} MB  ${label}`);
for (const [stack, n] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${String(mb(n)).padStart(7)} MB  ${stack}`);
