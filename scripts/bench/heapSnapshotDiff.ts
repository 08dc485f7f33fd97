// What a heap holds more of in one snapshot than in another, by constructor:
// `npx tsx scripts/bench/heapSnapshotDiff.ts <before.heapsnapshot> <after.heapsnapshot> [per] [top]`.
// Each snapshot's nodes are counted and their own sizes summed by kind and name (a constructor,
// "(closure)" names its function, strings and code by kind); the rows that grew most are
// printed, divided by `per` (the requests between the two snapshots: what one of them keeps).
import fs from 'node:fs';
import path from 'node:path';
import { delay } from './proc.ts';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export type Tally = Map<string, { count: number; bytes: number }>;

/**
 * A heap snapshot of the process `pid` (started with --heapsnapshot-signal=SIGUSR2 and
 * --diagnostic-dir=`dir`), tallied once it has written it whole (it is written as it is made:
 * read until it parses); `written` is then given the file's path (to keep or delete it).
 */
export async function snapshotOf(pid: number, dir: string, written: (file: string) => void): Promise<Tally> {
  const before = new Set(fs.readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    await delay(2_000);
    const file = fs.readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    if (!file) continue;
    let counted: Tally;
    try {
      counted = tally(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
    } catch {
      continue; // not whole yet
    }
    written(path.join(dir, file));
    return counted;
  }
}

/** Every node's kind:name, counted and sized. */
export function tally(snapshot: Snapshot): Tally {
  const fields = snapshot.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snapshot.snapshot.meta.node_types[0];
  const out: Tally = new Map();
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = types[snapshot.nodes[i + typeAt]];
    // strings by kind only: their text names nothing that holds them
    const name = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '' : snapshot.strings[snapshot.nodes[i + nameAt]];
    const key = `${type}:${name.length > 80 ? `${name.slice(0, 77)}...` : name}`;
    const row = out.get(key) ?? { count: 0, bytes: 0 };
    row.count += 1;
    row.bytes += snapshot.nodes[i + sizeAt];
    out.set(key, row);
  }
  return out;
}

export function grown(before: Tally, after: Tally): { key: string; count: number; bytes: number }[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys]
    .map((key) => ({
      key,
      count: (after.get(key)?.count ?? 0) - (before.get(key)?.count ?? 0),
      bytes: (after.get(key)?.bytes ?? 0) - (before.get(key)?.bytes ?? 0),
    }))
    .sort((a, b) => Math.abs(b.bytes) - Math.abs(a.bytes));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [beforeFile, afterFile, per = '1', top = '30'] = process.argv.slice(2);
  const read = (file: string) => tally(JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot);
  const rows = grown(read(beforeFile), read(afterFile));
  const n = Number(per);
  let total = 0;
  for (const row of rows) total += row.bytes;
  console.log(`all nodes: ${Math.round(total / n)} bytes a request`);
  for (const row of rows.slice(0, Number(top)))
    console.log(`${String(Math.round(row.bytes / n)).padStart(8)} B ${(row.count / n).toFixed(2).padStart(8)} × ${row.key}`);
}
