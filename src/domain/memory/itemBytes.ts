// What one store item takes toward its tenant's bytes (AGENTPLANE_MAX_STORE_BYTES_PER_TENANT):
// its namespace, key and value as JSON, UTF-8, what the tenant sent and reads back. The vectors
// an embeddings index adds are the operator's choice and not counted.
import type { MemoryItem } from '../ports/memoryItemsRepository.ts';

export function itemBytes(item: Pick<MemoryItem, 'namespace' | 'key' | 'value'>): number {
  return Buffer.byteLength(JSON.stringify([item.namespace, item.key, item.value]));
}
