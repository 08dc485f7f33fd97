// The memory store as LangGraph's BaseStore, so graphs reach it as `config.store` /
// `runtime.store` (getStore()) and read and write the same items as the HTTP API. BaseStore
// is LangGraph's own class (@langchain/langgraph re-exports it from here), imported from
// the checkpoint package so that a plain graph's run does not load all of LangGraph.
import { BaseStore, type Operation, type OperationResults } from '@langchain/langgraph-checkpoint';
import type { MemoryItem, MemoryStore } from './memoryStore.ts';

type AnyOp = Record<string, any>;

/** What a graph's store reaches: the memory store itself, or (in a run worker) a proxy to it. */
export type MemoryAccess = Pick<MemoryStore, 'get' | 'put' | 'delete' | 'search' | 'listNamespaces'>;

export class LangGraphMemoryStore extends BaseStore {
  constructor(
    private readonly memory: MemoryAccess,
    private readonly scope: string,
  ) {
    super();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations as AnyOp[]) results.push(await this.apply(op));
    return results as OperationResults<Op>;
  }

  private async apply(op: AnyOp): Promise<unknown> {
    if ('namespacePrefix' in op) {
      const found = await this.memory.search(this.scope, {
        prefix: op.namespacePrefix,
        filter: op.filter,
        limit: op.limit,
        offset: op.offset,
        query: op.query,
      });
      return found.map((item) => ({ ...toLangGraphItem(item), ...(item.score === null ? {} : { score: item.score }) }));
    }
    if ('value' in op) {
      if (op.value === null) await this.memory.delete(this.scope, op.namespace, op.key);
      else {
        // a graph's write over its tenant's quota fails the graph's call, as the API's does
        const stored = await this.memory.put(this.scope, op.namespace, op.key, op.value, { index: op.index });
        if (!stored.ok) throw new Error(stored.failure.detail);
      }
      return undefined;
    }
    if ('key' in op) {
      const item = await this.memory.get(this.scope, op.namespace, op.key);
      return item ? toLangGraphItem(item) : null;
    }
    const conditions = (op.matchConditions ?? []) as { matchType: 'prefix' | 'suffix'; path: string[] }[];
    return this.memory.listNamespaces(this.scope, {
      prefix: conditions.find((c) => c.matchType === 'prefix')?.path,
      suffix: conditions.find((c) => c.matchType === 'suffix')?.path,
      maxDepth: op.maxDepth,
      limit: op.limit,
      offset: op.offset,
    });
  }
}

function toLangGraphItem(item: MemoryItem) {
  return { namespace: item.namespace, key: item.key, value: item.value, createdAt: new Date(item.created_at), updatedAt: new Date(item.updated_at) };
}
