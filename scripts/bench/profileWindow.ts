// A stretch of a V8 .cpuprofile (`--cpu-prof`) between two points of its clock, and what our
// sources spent in it (runsAloneProbe.ts, runCostByHistory.ts). A profile's clock is the
// system's monotonic one (process.hrtime in µs), so a client can mark the stretch it measured.
import type { CpuProfile } from './flame.ts';

/** The profile's samples taken between two points of its clock (µs): the measured stretch alone. */
/**
 * `capUs`: each sample counted at most this long. A gap far over the sampling interval is time
 * the thread spent off the CPU on a loaded machine, not work in the sampled function.
 */
export function within(profile: CpuProfile & { startTime: number }, fromUs: number, toUs: number, capUs = Infinity): CpuProfile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let clock = profile.startTime;
  profile.samples.forEach((id, i) => {
    clock += profile.timeDeltas[i] ?? 0;
    if (clock < fromUs || clock > toUs) return;
    samples.push(id);
    timeDeltas.push(samples.length === 1 ? 0 : Math.min(capUs, profile.timeDeltas[i] ?? 0));
  });
  return { nodes: profile.nodes, samples, timeDeltas };
}

export function busyUs(profile: CpuProfile): number {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  return profile.samples.reduce((sum, id, i) => sum + (idle.has(id) ? 0 : (profile.timeDeltas[i] ?? 0)), 0);
}

/** Each function of our sources (dist/src, src) by the time it was on the stack, largest first. */
export function inclusiveOurs(profile: CpuProfile): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const total = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const { functionName, url, lineNumber } = byId.get(n)!.callFrame;
      const at = url.lastIndexOf('/src/');
      if (at < 0) continue;
      const key = `${functionName || '(anonymous)'} ${url.slice(at + 1)}:${lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
    }
  });
  return [...total].sort((a, b) => b[1] - a[1]);
}
