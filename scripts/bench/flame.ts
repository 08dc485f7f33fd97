// A flame graph (SVG) from a V8 .cpuprofile (`node --cpu-prof`): each frame a box as wide as
// the time spent in it and what it called, callers below callees. Idle time is left out, so
// the widths are shares of the time the process worked. Colours: our sources blue,
// dependencies orange, Node's internals and V8 grey.

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** A node of a V8 sampling heap profile (`node --heap-prof`): the bytes sampled as allocated here and still held. */
export interface HeapNode {
  id: number;
  callFrame: CpuProfile['nodes'][number]['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** A sampling heap profile as a flame graph's input: each node's bytes held as its "samples". */
export function heapAsProfile(head: HeapNode): CpuProfile {
  const profile: CpuProfile = { nodes: [], samples: [], timeDeltas: [] };
  const visit = (node: HeapNode) => {
    profile.nodes.push({ id: node.id, callFrame: node.callFrame, children: node.children.map((c) => c.id) });
    if (node.selfSize > 0) {
      profile.samples.push(node.id);
      profile.timeDeltas.push(node.selfSize);
    }
    node.children.forEach(visit);
  };
  visit(head);
  return profile;
}

/** Each function's own figure in a profile (its samples' sum), by "name file:line", largest first. */
export function selfByFunction(profile: CpuProfile): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url ? `${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return [...self].sort((a, b) => b[1] - a[1]);
}

/**
 * The main thread's file among a process's profiles (`--cpu-prof`, `--heap-prof`: thread index
 * 0). Without it (a process killed before writing it) a worker's would be taken for it: throws.
 */
export function mainThreadFile(files: string[], dir: string): string {
  const main = files.find((f) => /\.0\.\d+\.(cpu|heap)profile$/.test(f));
  if (!main) throw new Error(`no main-thread profile in ${dir} (${files.join(', ') || 'none'}): did the process stop cleanly?`);
  return main;
}

interface Frame {
  name: string;
  url: string;
  /** Microseconds in this frame and everything it called. */
  total: number;
  children: Frame[];
}

const ROW = 17;
const WIDTH = 1200;
const MIN_PX = 0.4;
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The profile as a tree of frames with their total times, idle left out. */
export function frameTree(profile: CpuProfile): Frame {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const childIds = new Set(profile.nodes.flatMap((n) => n.children ?? []));
  const build = (id: number): Frame | null => {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') return null;
    const children = (node.children ?? []).map(build).filter((f): f is Frame => f !== null && f.total > 0);
    const total = (self.get(id) ?? 0) + children.reduce((sum, c) => sum + c.total, 0);
    return { name: node.callFrame.functionName || '(anonymous)', url: node.callFrame.url, total, children: children.sort((a, b) => b.total - a.total) };
  };
  const roots = profile.nodes
    .filter((n) => !childIds.has(n.id))
    .map((n) => build(n.id))
    .filter((f): f is Frame => f !== null);
  return roots.length === 1 ? roots[0] : { name: '(root)', url: '', total: roots.reduce((s, r) => s + r.total, 0), children: roots };
}

function colour(url: string): string {
  if (url.includes('/node_modules/')) return '#f59e0b';
  if (/\/(src|generated)\//.test(url)) return '#60a5fa';
  return '#d1d5db';
}

function shortUrl(url: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  const src = /\/((?:src|generated)\/.*)$/.exec(url);
  return src ? src[1] : url.replace(/^node:/, '');
}

/** How a profile's figures read: a CPU profile's are µs of CPU, a heap profile's (profileMemory.ts) bytes held. */
export interface FlameUnit {
  /** What one shown unit is in the profile's figures (1,000 µs a ms, 1,048,576 bytes a MB). */
  per: number;
  name: string;
  /** Said after the total in the title. */
  total: string;
}
const CPU_UNIT: FlameUnit = { per: 1000, name: 'ms', total: 'of CPU, idle left out' };

export function renderFlameGraph(profile: CpuProfile, title: string, unit: FlameUnit = CPU_UNIT): string {
  const root = frameTree(profile);
  const boxes: string[] = [];
  let depth = 0;
  const scale = root.total > 0 ? WIDTH / root.total : 0;
  const place = (frame: Frame, x: number, level: number) => {
    const w = frame.total * scale;
    if (w < MIN_PX) return;
    depth = Math.max(depth, level);
    const label = `${frame.name}${frame.url ? ` ${shortUrl(frame.url)}` : ''}`;
    const tip = `${label}: ${(frame.total / unit.per).toFixed(1)} ${unit.name}, ${((frame.total / root.total) * 100).toFixed(1)}%`;
    const text = w > 40 ? `<text x="${(x + 3).toFixed(1)}" y="{Y}" font-size="11">${escape(label.slice(0, Math.floor(w / 6.5)))}</text>` : '';
    boxes.push(
      `<g><title>${escape(tip)}</title><rect x="${x.toFixed(1)}" y="{Y}" width="${w.toFixed(1)}" height="${ROW - 1}" fill="${colour(frame.url)}"/>${text}</g>\u0000${level}`,
    );
    let at = x;
    for (const child of frame.children) {
      place(child, at, level + 1);
      at += child.total * scale;
    }
  };
  place(root, 0, 0);
  const height = (depth + 1) * ROW + 30;
  // flames grow upwards: the root at the bottom
  const body = boxes.map((b) => {
    const [svg, level] = b.split('\u0000');
    const y = height - (Number(level) + 1) * ROW;
    return svg.replace('y="{Y}"', `y="${y}"`).replace('y="{Y}"', `y="${y + 12}"`);
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="monospace">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="4" y="16" font-size="13">${escape(title)} — ${(root.total / unit.per).toFixed(0)} ${unit.name} ${unit.total}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
