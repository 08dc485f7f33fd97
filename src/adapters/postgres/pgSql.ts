// SQL pieces the repositories share.

/**
 * A metadata filter with the embedded store's meaning (containment.ts: each wanted top-level
 * entry present with an equal value) as conditions on a jsonb column: `@>` lets the GIN index
 * narrow the rows, and an equality per entry rules out what `@>` alone lets through (array
 * subsets, parts of nested objects). Pushes its parameters onto `params`.
 */
export function metadataEquals(column: string, wanted: Record<string, unknown>, params: unknown[]): string[] {
  const entries = Object.entries(wanted);
  if (entries.length === 0) return [];
  params.push(JSON.stringify(wanted));
  const parts = [`${column} @> $${params.length}::jsonb`];
  for (const [key, value] of entries) {
    params.push(key, JSON.stringify(value));
    parts.push(`${column} -> $${params.length - 1}::text = $${params.length}::jsonb`);
  }
  return parts;
}
