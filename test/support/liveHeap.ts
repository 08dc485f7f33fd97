// The heap a test's objects hold: V8's used heap after a full collection (gc exposed for the
// test process on first use), so a bytes-per-record bound reads what is live, not garbage.
import v8, { getHeapSnapshot } from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | undefined;

/** Bytes of heap in use after a full collection. */
export function liveHeapUsed(): number {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
  return process.memoryUsage().heapUsed;
}

/** How many strings of at least `chars` characters this process's heap holds (a snapshot of it). */
export async function longStrings(chars: number): Promise<number> {
  const parts: string[] = [];
  for await (const chunk of getHeapSnapshot()) parts.push(chunk.toString());
  const snapshot = JSON.parse(parts.join('')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
  const fields = snapshot.snapshot.meta.node_fields;
  const [typeAt, sizeAt] = [fields.indexOf('type'), fields.indexOf('self_size')];
  const types = snapshot.snapshot.meta.node_types[0];
  let count = 0;
  // a flat string's own size is its characters (one byte each here) and a header
  for (let i = 0; i < snapshot.nodes.length; i += fields.length)
    if (types[snapshot.nodes[i + typeAt]!] === 'string' && snapshot.nodes[i + sizeAt]! >= chars) count += 1;
  return count;
}
