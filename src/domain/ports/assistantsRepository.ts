// The assistants as the registry keeps them: an assistant and its versions (each change is
// a new version, kept beside the assistant and written with it), and the searches and counts
// over one owner's assistants and the shared system ones. Kept in the embedded store's
// collections (adapters/embedded/collectionAssistants.ts) and, on PostgreSQL, in the
// assistants tables with the searches in SQL (adapters/postgres/pgAssistants.ts).
import type { Assistant, AssistantVersion } from '../../../generated/agent-server/types.gen.ts';

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
  get(assistantId: string): Promise<AssistantRecord | undefined>;
  /**
   * Stores the assistant and then its version when no assistant has its id yet; resolves
   * false (and writes nothing) when one has.
   */
  addIfAbsent(assistant: AssistantRecord, version: AssistantVersion): Promise<boolean>;
  /** Stores the assistant and its version (`version.version`) in one atomic write. */
  save(assistant: AssistantRecord, version: AssistantVersion): Promise<void>;
  /** Stores the assistant alone (another of its versions made the latest). */
  put(assistant: AssistantRecord): Promise<void>;
  /** Deletes the assistant and every version of it in one atomic write. */
  delete(assistantId: string): Promise<void>;
  /** The assistant's versions, in no given order; only those whose metadata holds `metadata` when given. */
  versionsOf(assistantId: string, metadata?: Record<string, unknown>): Promise<AssistantVersion[]>;
  version(assistantId: string, version: number): Promise<AssistantVersion | undefined>;
  search(filter: AssistantFilter, page: AssistantPage): Promise<AssistantRecord[]>;
  count(filter: AssistantFilter): Promise<number>;
}
