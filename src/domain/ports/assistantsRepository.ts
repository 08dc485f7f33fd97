// The assistants' named queries: searches and counts over one owner's assistants and the
// shared system ones, answered by the collection on the embedded store
// (collectionAssistants.ts) and in SQL over the assistants table on PostgreSQL
// (pgAssistants.ts).
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';

/** An assistant as stored: with its owner (see ownerOf in agent/records.ts). */
export type AssistantRecord = Assistant & { owner?: string };

export interface AssistantFilter {
  /** The caller's own assistants… */
  owner: string;
  /** …and these system assistants (stored without an owner). */
  systemIds: string[];
  /** Only assistants of these graphs (the configured ones: another's cannot run). */
  graphIds: string[];
  graph_id?: string;
  /** Only names containing this text, whatever the case. */
  name?: string;
  metadata?: Record<string, unknown>;
}

export type AssistantSortField = 'assistant_id' | 'graph_id' | 'name' | 'created_at' | 'updated_at';

export interface AssistantPage {
  sortBy: AssistantSortField;
  order: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export interface AssistantsRepository {
  search(filter: AssistantFilter, page: AssistantPage): Promise<AssistantRecord[]>;
  count(filter: AssistantFilter): Promise<number>;
}
