// What a heap holds that it did not hold a moment before, by who holds it (issue 87: what the
// main thread's scavenges copy). Two V8 heap snapshots of one process, taken a short while apart:
// a node's id is kept across snapshots (V8 tracks an object as the collector moves it), so a node of
// the second whose id is not in the first was allocated in between and is still alive, which is
// what a scavenge finds alive in the young generation and copies (or promotes). Each new node is
// given to its owner: the last node of the first snapshot on its shortest path from the root (a
// breadth-first walk that leaves out weak edges), named with the few steps above it and the edge
// to the new node, so "Map.table > [] > LogEntry" reads as who keeps it.
// `npx tsx scripts/bench/heapNewObjects.ts <before.heapsnapshot> <after.heapsnapshot> [top]`.
import fs from 'node:fs';

export interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface Owned {
  owner: string;
  count: number;
  bytes: number;
  /** The new nodes' own kinds under this owner, the largest first: "kind:name" → bytes. */
  kinds: [string, number][];
}

export interface NewObjects {
  count: number;
  bytes: number;
  /** New nodes by kind:name, the largest first. */
  byKind: { kind: string; count: number; bytes: number }[];
  byOwner: Owned[];
}

/** The ids of a snapshot's nodes. */
export function idsOf(snapshot: HeapSnapshot): Set<number> {
  const fields = snapshot.snapshot.meta.node_fields;
  const width = fields.length;
  const idAt = fields.indexOf('id');
  const ids = new Set<number>();
  for (let i = 0; i < snapshot.nodes.length; i += width) ids.add(snapshot.nodes[i + idAt]);
  return ids;
}

const STRING_TYPES = new Set(['string', 'concatenated string', 'sliced string']);
const OFF_HEAP = new Set(['native', 'synthetic']);

/** The nodes of `after` not in `before` (by id), counted by kind and by owner; `depth` steps of the owner's path named. */
export function newObjects(before: Set<number>, after: HeapSnapshot, depth = 3): NewObjects {
  const meta = after.snapshot.meta;
  const width = meta.node_fields.length;
  const typeAt = meta.node_fields.indexOf('type');
  const nameAt = meta.node_fields.indexOf('name');
  const idAt = meta.node_fields.indexOf('id');
  const sizeAt = meta.node_fields.indexOf('self_size');
  const countAt = meta.node_fields.indexOf('edge_count');
  const edgeWidth = meta.edge_fields.length;
  const edgeTypeAt = meta.edge_fields.indexOf('type');
  const edgeNameAt = meta.edge_fields.indexOf('name_or_index');
  const edgeToAt = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const n = after.nodes.length / width;
  const firstEdge = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) firstEdge[i + 1] = firstEdge[i] + after.nodes[i * width + countAt];

  const type = (i: number) => nodeTypes[after.nodes[i * width + typeAt]];
  const kind = (i: number) => {
    const t = type(i);
    if (STRING_TYPES.has(t)) return t; // a string's text names nothing that holds it
    const name = after.strings[after.nodes[i * width + nameAt]];
    return `${t}:${name.length > 60 ? `${name.slice(0, 57)}...` : name}`;
  };
  const isNew = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (!before.has(after.nodes[i * width + idAt])) isNew[i] = 1;

  // the shortest path from the root, as each node's parent and the edge into it
  const parent = new Int32Array(n).fill(-1);
  const parentEdge = new Int32Array(n).fill(-1);
  const order = new Uint32Array(n);
  let head = 0;
  let tail = 0;
  parent[0] = 0;
  order[tail++] = 0;
  while (head < tail) {
    const i = order[head++];
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e++) {
      const at = e * edgeWidth;
      if (edgeTypes[after.edges[at + edgeTypeAt]] === 'weak') continue;
      const to = after.edges[at + edgeToAt] / width;
      if (parent[to] !== -1) continue;
      parent[to] = i;
      parentEdge[to] = e;
      order[tail++] = to;
    }
  }
  const edgeName = (e: number) => {
    const t = edgeTypes[after.edges[e * edgeWidth + edgeTypeAt]];
    const name = after.edges[e * edgeWidth + edgeNameAt];
    // an element's or a hidden slot's index names no holder: all of them one owner
    if (t === 'element' || t === 'hidden') return '[]';
    const text = after.strings[name];
    // so is a hash table's internal slot (a Map's entries: "(internal)1103"; a WeakMap's: "(internal)309 / part of key …")
    if (/^\d+($| \/ part of key)/.test(text)) return '[]';
    return `${t === 'property' ? '' : `(${t})`}${text}`;
  };
  const ownerName = (oldHolder: number, into: number) => {
    const steps: string[] = [];
    let at = oldHolder;
    for (let k = 0; k < depth && at !== 0; k++) {
      steps.unshift(`${kind(at)}`);
      steps.unshift(edgeName(parentEdge[at]));
      at = parent[at];
    }
    return `${steps.join(' > ')} > ${edgeName(parentEdge[into])} > (new)`;
  };

  // each new node's owner, in the walk's order (a parent's before its children's)
  const ownerOf = new Int32Array(n).fill(-1);
  const owners: string[] = [];
  const ownerIndex = new Map<string, number>();
  const byOwner: { count: number; bytes: number; kinds: Map<string, number> }[] = [];
  const byKind = new Map<string, { count: number; bytes: number }>();
  let count = 0;
  let bytes = 0;
  for (let k = 0; k < tail; k++) {
    const i = order[k];
    // native and synthetic nodes are not on V8's heap: no scavenge copies them
    if (!isNew[i] || OFF_HEAP.has(type(i))) continue;
    const p = parent[i];
    if (isNew[p] && ownerOf[p] !== -1) ownerOf[i] = ownerOf[p];
    else {
      const name = ownerName(p, i);
      let index = ownerIndex.get(name);
      if (index === undefined) {
        index = owners.push(name) - 1;
        ownerIndex.set(name, index);
        byOwner.push({ count: 0, bytes: 0, kinds: new Map() });
      }
      ownerOf[i] = index;
    }
    const size = after.nodes[i * width + sizeAt];
    const row = byOwner[ownerOf[i]];
    row.count += 1;
    row.bytes += size;
    const k2 = kind(i);
    row.kinds.set(k2, (row.kinds.get(k2) ?? 0) + size);
    const kindRow = byKind.get(k2) ?? { count: 0, bytes: 0 };
    kindRow.count += 1;
    kindRow.bytes += size;
    byKind.set(k2, kindRow);
    count += 1;
    bytes += size;
  }
  return {
    count,
    bytes,
    byKind: [...byKind].map(([kind, row]) => ({ kind, ...row })).sort((a, b) => b.bytes - a.bytes),
    byOwner: byOwner
      .map((row, index) => ({ owner: owners[index], count: row.count, bytes: row.bytes, kinds: [...row.kinds].sort((a, b) => b[1] - a[1]) }))
      .sort((a, b) => b.bytes - a.bytes),
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** The report's lines: the totals, the top kinds, the top owners with their top kinds. */
export function newObjectsReport(found: NewObjects, top = 25): string[] {
  const lines = [`new and alive: ${found.count} nodes, ${kb(found.bytes)}`, 'by kind:'];
  for (const row of found.byKind.slice(0, top)) lines.push(`  ${kb(row.bytes).padStart(10)} ${String(row.count).padStart(7)} × ${row.kind}`);
  lines.push('by owner (the last old node on the path from the root, with the steps above it):');
  for (const row of found.byOwner.slice(0, top)) {
    lines.push(`  ${kb(row.bytes).padStart(10)} ${String(row.count).padStart(7)} nodes: ${row.owner}`);
    lines.push(
      `      ${row.kinds
        .slice(0, 4)
        .map(([k, b]) => `${k} ${kb(b)}`)
        .join('; ')}`,
    );
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [beforeFile, afterFile, top = '25'] = process.argv.slice(2);
  const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as HeapSnapshot;
  const before = idsOf(read(beforeFile));
  for (const line of newObjectsReport(newObjects(before, read(afterFile)), Number(top))) console.log(line);
}
