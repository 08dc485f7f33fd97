// The assistants in two collections of the store (the embedded store, which holds them all in
// memory): the assistants, and every version of each (id `<assistant_id>@<version>`); filters
// are closures, sorting is in memory. On PostgreSQL the same collections are tables, and
// pgAssistants.ts answers the searches and counts in SQL instead.
import type { AssistantVersion } from '../../../generated/agent-server/types.gen.ts';
import type { Collection, Store } from '../../domain/ports/store.ts';
import type { AssistantFilter, AssistantPage, AssistantRecord, AssistantsRepository } from '../../domain/ports/assistantsRepository.ts';
import { ownerOf } from '../../domain/agent/records.ts';
import { metadataContains, sortBy } from '../../domain/agent/search.ts';

const versionId = (a: { assistant_id: string; version: number }) => `${a.assistant_id}@${a.version}`;

export class CollectionAssistants implements AssistantsRepository {
  protected readonly assistants: Collection<AssistantRecord>;
  private readonly versions: Collection<AssistantVersion>;
  /** Where an assistant and its versions are written as one step (Store.write). */
  private readonly writer: Pick<Store, 'write'>;

  constructor(store: Store) {
    this.writer = store;
    this.assistants = store.collection<AssistantRecord>('assistants', { indexes: ['graph_id'], containment: ['metadata'] });
    this.versions = store.collection<AssistantVersion>('assistant_versions', { indexes: ['assistant_id'], containment: ['metadata'] });
  }

  get(assistantId: string): Promise<AssistantRecord | undefined> {
    return this.assistants.get(assistantId);
  }

  async addIfAbsent(assistant: AssistantRecord, version: AssistantVersion): Promise<boolean> {
    if (!(await this.assistants.insert(assistant.assistant_id, assistant))) return false;
    await this.versions.put(versionId(version), version);
    return true;
  }

  save(assistant: AssistantRecord, version: AssistantVersion): Promise<void> {
    return this.writer.write([
      { collection: this.assistants.name, id: assistant.assistant_id, value: assistant },
      { collection: this.versions.name, id: versionId(version), value: version },
    ]);
  }

  put(assistant: AssistantRecord): Promise<void> {
    return this.assistants.put(assistant.assistant_id, assistant);
  }

  async delete(assistantId: string): Promise<void> {
    const versions = await this.versions.list({ where: { assistant_id: assistantId } });
    await this.writer.write([
      { collection: this.assistants.name, id: assistantId, delete: true },
      ...versions.map((v) => ({ collection: this.versions.name, id: versionId(v), delete: true as const })),
    ]);
  }

  versionsOf(assistantId: string, metadata?: Record<string, unknown>): Promise<AssistantVersion[]> {
    return this.versions.list({ where: { assistant_id: assistantId }, contains: metadataContains(metadata) });
  }

  version(assistantId: string, version: number): Promise<AssistantVersion | undefined> {
    return this.versions.get(versionId({ assistant_id: assistantId, version }));
  }

  async search(filter: AssistantFilter, page: AssistantPage): Promise<AssistantRecord[]> {
    return sortBy(await this.matching(filter), page.sortBy, page.order).slice(page.offset, page.offset + page.limit);
  }

  async count(filter: AssistantFilter): Promise<number> {
    return (await this.matching(filter)).length;
  }

  private matching(filter: AssistantFilter): Promise<AssistantRecord[]> {
    const graphs = new Set(filter.graphIds);
    const system = new Set(filter.systemIds);
    const name = filter.name?.toLowerCase();
    return this.assistants.list({
      where: filter.graph_id ? { graph_id: filter.graph_id } : undefined,
      filter: (a) =>
        graphs.has(a.graph_id) &&
        ((a.owner === undefined && system.has(a.assistant_id)) || ownerOf(a) === filter.owner) &&
        (!name || a.name.toLowerCase().includes(name)),
      contains: metadataContains(filter.metadata),
    });
  }
}
