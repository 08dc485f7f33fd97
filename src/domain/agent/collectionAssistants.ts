// The assistants' named queries over a generic collection (the embedded store, which holds
// every assistant in memory): filters are closures, sorting is in memory.
import type { Collection } from '../ports/store.ts';
import type { AssistantFilter, AssistantPage, AssistantRecord, AssistantsRepository } from '../ports/assistantsRepository.ts';
import { ownerOf } from './records.ts';
import { metadataContains, sortBy } from './search.ts';

export class CollectionAssistants implements AssistantsRepository {
  constructor(private readonly assistants: Collection<AssistantRecord>) {}

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
