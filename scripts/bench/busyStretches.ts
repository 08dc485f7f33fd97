// The main thread's busy stretches in a V8 .cpuprofile: runs of samples without an idle one
// between them. A request that arrives during a stretch waits for it, so `/ok`'s tail under load
// is about the longest stretches, not the busy total (issue 67 point 5). Each stretch is named by
// what spent most of it: the functions with the most self time, and the sources of ours on the
// stacks (which module's turn it was).
import type { CpuProfile } from './flame.ts';

export interface Stretch {
  /** When it began, ms since the profile's start. */
  atMs: number;
  ms: number;
  /** Functions with the most self time in it, with their ms. */
  self: [string, number][];
  /** Our modules (src/…) on its stacks, by the time their frames were on them. */
  ours: [string, number][];
}

const idleNames = new Set(['(idle)']);

/** The profile's busy stretches, longest first, and how many of them lasted at least each bound. */
export function busyStretches(
  profile: CpuProfile,
  top = 10,
  bounds = [5, 10, 20, 50, 100],
  capUs = Infinity,
): { longest: Stretch[]; atLeast: [number, number][]; count: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stretches: { at: number; us: number; samples: number[]; deltas: number[] }[] = [];
  let clock = 0;
  let open: (typeof stretches)[number] | undefined;
  profile.samples.forEach((id, i) => {
    const gap = profile.timeDeltas[i] ?? 0;
    clock += gap;
    // a gap much longer than the sampling interval is time the thread was off the CPU (a shared
    // machine's other work), not work: counted at most capUs, a stretch is then the loop's own
    const delta = Math.min(gap, capUs);
    const idle = idleNames.has(byId.get(id)!.callFrame.functionName);
    if (idle) {
      open = undefined;
      return;
    }
    if (!open) stretches.push((open = { at: clock, us: 0, samples: [], deltas: [] }));
    open.us += delta;
    open.samples.push(id);
    open.deltas.push(delta);
  });
  const name = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url ? `${url.replace(/^.*\/(node_modules|dist|src)\//, '$1/')}:${lineNumber + 1}` : '';
    return `${functionName || '(anonymous)'} ${where}`.trim();
  };
  const module = (id: number) => {
    const url = byId.get(id)!.callFrame.url;
    const at = url.lastIndexOf('/src/');
    return at >= 0 ? url.slice(at + 1) : undefined;
  };
  const describe = (s: (typeof stretches)[number]): Stretch => {
    const self = new Map<string, number>();
    const ours = new Map<string, number>();
    s.samples.forEach((id, i) => {
      const ms = s.deltas[i]! / 1000;
      self.set(name(id), (self.get(name(id)) ?? 0) + ms);
      const seen = new Set<string>();
      for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
        const m = module(n);
        if (m && !seen.has(m)) {
          seen.add(m);
          ours.set(m, (ours.get(m) ?? 0) + ms);
        }
      }
    });
    const topOf = (m: Map<string, number>, k: number) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, k)
        .map(([key, ms]) => [key, Math.round(ms * 10) / 10] as [string, number]);
    return { atMs: Math.round(s.at / 1000), ms: Math.round(s.us / 100) / 10, self: topOf(self, 4), ours: topOf(ours, 6) };
  };
  const sorted = [...stretches].sort((a, b) => b.us - a.us);
  return {
    longest: sorted.slice(0, top).map(describe),
    atLeast: bounds.map((b) => [b, stretches.filter((s) => s.us >= b * 1000).length]),
    count: stretches.length,
  };
}

// `npx tsx scripts/bench/busyStretches.ts <file.cpuprofile> [top] [cap µs]`: prints them; with a cap
// (about twice the profile's --cpu-prof-interval), each sample counts at most that long.
if (import.meta.url === `file://${process.argv[1]}`) {
  const fs = await import('node:fs');
  const profile = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as CpuProfile;
  const { longest, atLeast, count } = busyStretches(profile, Number(process.argv[3] ?? 10), undefined, Number(process.argv[4] ?? Infinity));
  console.log(`${count} busy stretches; lasting at least: ${atLeast.map(([b, n]) => `${b} ms ${n}`).join(', ')}`);
  for (const s of longest) {
    console.log(`${s.ms} ms at ${s.atMs} ms`);
    console.log(`   self: ${s.self.map(([k, ms]) => `${k} ${ms}`).join('; ')}`);
    console.log(`   ours: ${s.ours.map(([k, ms]) => `${k} ${ms}`).join('; ')}`);
  }
}
