// The long-term memory store: putStoreItem, getStoreItem, deleteStoreItem, searchStoreItems,
// listStoreNamespaces. Items are scoped by the caller's tenant (auth on) or shared (auth off; see owner.ts).
import type { MemoryStore } from '../../domain/memory/memoryStore.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import type { OwnerOf } from './owner.ts';
import { flag } from './replies.ts';
import { failed } from './failures.ts';

type StoreOps = 'putStoreItem' | 'getStoreItem' | 'deleteStoreItem' | 'searchStoreItems' | 'listStoreNamespaces';

export function storeHandlers(memory: MemoryStore, ownerOf: OwnerOf): Pick<AgentServerAreaHandlers, StoreOps> {
  return {
    async putStoreItem({ body }, ctx) {
      const stored = await memory.put(ownerOf(ctx), body.namespace, body.key, body.value, {
        index: body.index as false | string[] | null | undefined,
        ttl: body.ttl,
      });
      return stored.ok ? { status: 204 } : failed(stored.failure);
    },
    async getStoreItem({ query }, ctx) {
      const namespace = query.namespace.split('.');
      if (namespace.some((label) => label === '')) {
        return { status: 422, body: { detail: [{ loc: ['query', 'namespace'], msg: 'Namespace labels cannot be empty', type: 'value_error' }] } };
      }
      const refresh = query.refresh_ttl === undefined ? undefined : flag(query.refresh_ttl);
      return { status: 200, body: await memory.get(ownerOf(ctx), namespace, query.key, refresh) };
    },
    async deleteStoreItem({ body }, ctx) {
      await memory.delete(ownerOf(ctx), body.namespace, body.key);
      return { status: 204 };
    },
    async searchStoreItems({ body }, ctx) {
      const items = await memory.search(ownerOf(ctx), {
        prefix: body?.namespace_prefix,
        filter: body?.filter,
        limit: body?.limit,
        offset: body?.offset,
        query: body?.query,
        refreshTtl: body?.refresh_ttl,
      });
      return { status: 200, body: { items } };
    },
    async listStoreNamespaces({ body }, ctx) {
      const namespaces = await memory.listNamespaces(ownerOf(ctx), {
        prefix: body?.prefix,
        suffix: body?.suffix,
        maxDepth: body?.max_depth,
        limit: body?.limit,
        offset: body?.offset,
      });
      return { status: 200, body: { namespaces } };
    },
  };
}
