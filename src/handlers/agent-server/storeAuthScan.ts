// Store lists under an auth handler's filters, as upstream pages them: the filters apply to
// every candidate before paging, so a page holds the first `limit` items (or namespaces) the
// caller may see after `offset` of them, never another user's, and never a short page because
// others' came first. Like upstream, at most SCAN_LIMIT candidates are looked at; a page that
// needs more is refused with upstream's 400 rather than answered incomplete.
import type { Reply } from '../../runtime/handler.ts';

export const SCAN_LIMIT = 10_000;
const SCAN_EXCEEDED = 'Authenticated store query exceeded maximum scan limit. Narrow the namespace or filters.';

/** The list field of each store list operation's body and reply, and its default page size. */
const LISTS: Record<string, { field: 'items' | 'namespaces'; limit: number }> = {
  searchStoreItems: { field: 'items', limit: 10 },
  listStoreNamespaces: { field: 'namespaces', limit: 100 },
};

/** What the filters are matched against: an item's value, namespace and key; a namespace alone. */
export function storeAuthMetadata(entry: unknown): Record<string, unknown> {
  if (Array.isArray(entry)) return { namespace: entry };
  const item = entry as { value?: object; namespace?: unknown; key?: unknown };
  return { ...(item.value ?? {}), namespace: item.namespace ?? [], ...(item.key === undefined ? {} : { key: item.key }) };
}

/**
 * Runs a store list operation confined to what `visible` admits, paged after confining; other
 * operations run as they are.
 */
export async function confinedStoreList(
  operationId: string,
  body: Record<string, unknown> | undefined,
  visible: (metadata: Record<string, unknown>) => boolean,
  run: () => Promise<Reply>,
): Promise<Reply | undefined> {
  const list = LISTS[operationId];
  if (!list || !body) return undefined;
  const offset = (body.offset as number | undefined) ?? 0;
  const limit = (body.limit as number | undefined) ?? list.limit;
  body.offset = 0;
  body.limit = SCAN_LIMIT;
  const reply = await run();
  if (reply.status !== 200 || !('body' in reply)) return reply;
  const candidates = ((reply.body as Record<string, unknown[]>)[list.field] ?? []) as unknown[];
  const admitted = candidates.filter((entry) => visible(storeAuthMetadata(entry)));
  if (candidates.length >= SCAN_LIMIT && admitted.length < offset + limit) return { status: 400, body: { detail: SCAN_EXCEEDED } };
  return { ...reply, body: { ...(reply.body as object), [list.field]: admitted.slice(offset, offset + limit) } };
}
