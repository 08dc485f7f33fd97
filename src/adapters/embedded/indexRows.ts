// A saved index's rows (issue 91): per record where its value is in its shard and the fields
// memory keeps of it, `[id, seq, at, len, {kept fields present}]`, as every layout of the index
// writes them (shardTrailer.ts; pagedIndex.ts and groupedIndex.ts, the layouts before), and the
// checks a start makes of them before use.

export interface IndexedRecord {
  id: string;
  seq: number;
  at: number;
  len: number;
  /** The kept fields' values, in the order of the collection's kept fields. */
  keys: unknown[];
}

export type FewValues = Readonly<Record<string, readonly string[]>>;

/** Records as an index lists them, checked against the shard's size and the head's seq; null when one is not a record. */
export function recordsOf(records: unknown, fields: readonly string[], size: number, highest: number): IndexedRecord[] | null {
  if (!Array.isArray(records)) return null;
  const out: IndexedRecord[] = [];
  for (const record of records as unknown[]) {
    if (!Array.isArray(record) || record.length !== 5) return null;
    const [id, seq, at, len, kept] = record as [unknown, unknown, unknown, unknown, Record<string, unknown> | null];
    if (typeof id !== 'string' || typeof seq !== 'number' || typeof at !== 'number' || typeof len !== 'number') return null;
    if (kept === null || typeof kept !== 'object' || at < 0 || len <= 0 || at + len > size || seq > highest) return null;
    out.push({ id, seq, at, len, keys: fields.map((field) => (Object.hasOwn(kept, field) ? kept[field] : undefined)) });
  }
  return out;
}

/** Whether a record's kept fields hold one of the few values (each field's place found once, not for each record). */
export function holdsFew(fields: readonly string[], few: FewValues): (keys: readonly unknown[]) => boolean {
  const checks = Object.entries(few)
    .map(([field, values]) => [fields.indexOf(field), values] as const)
    .filter(([at]) => at >= 0);
  if (checks.length === 0) return () => false;
  return (keys) => checks.some(([at, values]) => typeof keys[at] === 'string' && values.includes(keys[at]));
}

export function presentOf(fields: readonly string[], keys: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  fields.forEach((field, i) => {
    if (keys[i] !== undefined) out[field] = keys[i];
  });
  return out;
}
