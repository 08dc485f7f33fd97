// Two trees' profiles of the same requests side by side, by function: `npx tsx
// scripts/bench/profileSummary.ts <current> <baseline> <requests> [top] [depth]`, each file a
// CPU profile (.cpuprofile: self time) or a sampling heap profile (.heapprofile: bytes
// allocated), both from routesInProcess.ts --profile. A row is a function (name, file, line),
// or with `depth` above 1 the function and its callers up to that many frames, so an
// allocation common to many paths (an object literal, a closure) is told apart by who asked
// for it (lines are left out: the trees' files differ); figures are a request's (µs or bytes), the rows that differ most first.
import fs from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: CpuNode[];
  samples: number[];
  timeDeltas: number[];
}
interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}
interface HeapProfile {
  head: HeapNode;
  samples: { size: number; nodeId: number }[];
}

// the file without its extension and no line: one tree runs its sources through tsx, the other compiled JavaScript
const frame = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url ? path.basename(f.url).replace(/\.(ts|js|mjs|cjs)$/, '') : ''}`.trim();
const key = (stack: CallFrame[], depth: number) => stack.slice(-depth).reverse().map(frame).join(' ← ');

/** A profile's self figure (µs of CPU, or bytes) by `key` of each node's stack. */
export function bySelf(profile: CpuProfile | HeapProfile, depth: number): Map<string, number> {
  const out = new Map<string, number>();
  const add = (k: string, n: number) => out.set(k, (out.get(k) ?? 0) + n);
  if ('head' in profile) {
    // every sample has its size; a node's selfSize counts only those still alive at the end
    const sampled = new Map<number, number>();
    for (const s of profile.samples) sampled.set(s.nodeId, (sampled.get(s.nodeId) ?? 0) + s.size);
    const walk = (node: HeapNode & { id?: number }, stack: CallFrame[]) => {
      const here = [...stack, node.callFrame];
      add(key(here, depth), sampled.get(node.id!) ?? 0);
      for (const child of node.children) walk(child, here);
    };
    walk(profile.head, []);
    return out;
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = (id: number) => {
    const stack: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.unshift(byId.get(at)!.callFrame);
    return stack;
  };
  const keys = new Map<number, string>();
  profile.samples.forEach((id, i) => {
    if (!keys.has(id)) keys.set(id, key(stackOf(id), depth));
    add(keys.get(id)!, profile.timeDeltas[i] ?? 0);
  });
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [currentFile, baselineFile, requests, top = '30', depth = '1'] = process.argv.slice(2);
  const read = (file: string) => bySelf(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile | HeapProfile, Number(depth));
  const current = read(currentFile);
  const baseline = read(baselineFile);
  const n = Number(requests);
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0) / n;
  const unit = currentFile.endsWith('.cpuprofile') ? 'µs' : 'B';
  console.log(`all: current ${sum(current).toFixed(1)} ${unit}, baseline ${sum(baseline).toFixed(1)} ${unit} a request`);
  const rows = [...new Set([...current.keys(), ...baseline.keys()])]
    .map((k) => ({ k, c: (current.get(k) ?? 0) / n, b: (baseline.get(k) ?? 0) / n }))
    .sort((x, y) => Math.abs(y.c - y.b) - Math.abs(x.c - x.b));
  for (const { k, c, b } of rows.slice(0, Number(top))) console.log(`${(c - b).toFixed(1).padStart(8)} (${c.toFixed(1)} / ${b.toFixed(1)}) ${k}`);
}
