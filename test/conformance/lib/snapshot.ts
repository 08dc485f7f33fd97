// "Nothing stored": what every listing read answers, reduced to the identities of the
// listed resources, compared before and after a request the server should have refused.
import { operations, resolve, type Json, type Operation } from './contract.ts';
import type { ResourcePool } from './links.ts';
import { requestFor, send, type Target } from './http.ts';

/** Reads that list resources: GETs and `/search` POSTs whose answer is (or holds) an array. */
function listArray(op: Operation): { at: string | null; key: string | null } | null {
  if (op.jsonrpc || !(op.method === 'GET' || (op.method === 'POST' && op.path.endsWith('/search')))) return null;
  const ok = op.responses['200'];
  let s: Json = ok && resolve(op.doc, ok.content['application/json']);
  if (!s) return null;
  let at: string | null = null;
  if (s.type !== 'array') {
    const entry = Object.entries<Json>(s.properties ?? {}).find(([, p]) => resolve(op.doc, p)?.type === 'array');
    if (!entry) return null;
    at = entry[0];
    s = resolve(op.doc, entry[1]);
  }
  const item = resolve(op.doc, s.items) ?? {};
  const key = (item.required ?? []).find((n: string) => n === 'id' || n.endsWith('_id')) ?? null;
  return { at, key };
}

const listings = operations.map((op) => ({ op, list: listArray(op) })).filter((x) => x.list !== null) as {
  op: Operation;
  list: { at: string | null; key: string | null };
}[];

export type Snapshot = Record<string, string[]>;

export async function snapshot(target: Target, pool: ResourcePool): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const { op, list } of listings) {
    const path: Record<string, unknown> = {};
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const binding = pool.get(op.operationId)[0];
    if (pathParams.length && !binding) continue;
    for (const p of pathParams) path[p.name] = binding[p.name];
    const limit = op.parameters.find((p) => p.in === 'query' && p.name === 'limit');
    const query = limit?.schema?.maximum ? { limit: limit.schema.maximum } : {};
    const res = await send(target, requestFor(op, { path, query }));
    const items = (list.at ? (res.json as Json)?.[list.at] : res.json) as Json[] | undefined;
    if (res.status !== 200 || !Array.isArray(items)) continue;
    out[op.operationId] = items.map((i, n) => (list.key ? String(i?.[list.key]) : `#${n}`));
  }
  return out;
}

/**
 * What appeared between two snapshots. Only additions count: resources may legitimately
 * disappear meanwhile (a deletion finishing in the background), but a refused request
 * must not have stored anything.
 */
export function added(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [op, ids] of Object.entries(after)) {
    const had = new Set(before[op] ?? []);
    const fresh = ids.filter((id) => !had.has(id));
    if (fresh.length || (before[op] && ids.length > before[op].length))
      out.push(`${op} now also lists ${fresh.join(', ') || `${ids.length - before[op].length} more`}`);
  }
  return out;
}
