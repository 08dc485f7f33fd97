// Filtering and ordering shared by the assistant and thread searches.

export { containsAll, deepEqual } from '../ports/containment.ts';

/** A stable sort on one string field; ties keep their stored (creation) order. */
export function sortBy<T extends object>(items: T[], field: string, order: 'asc' | 'desc'): T[] {
  const sign = order === 'asc' ? 1 : -1;
  return items
    .map((item, index) => ({ item, index }))
    .sort((x, y) => {
      const a = String((x.item as Record<string, unknown>)[field] ?? '');
      const b = String((y.item as Record<string, unknown>)[field] ?? '');
      return a < b ? -sign : a > b ? sign : (x.index - y.index) * sign;
    })
    .map((e) => e.item);
}

/** A metadata filter from a request as the stores' `contains` (served by an index on PostgreSQL). */
export function metadataContains(metadata: unknown): { metadata: Record<string, unknown> } | undefined {
  return metadata && typeof metadata === 'object' ? { metadata: metadata as Record<string, unknown> } : undefined;
}
