// System assistants: one per configured graph, id = uuid5 of the graph name, upserted at
// start so their created_at survives restarts. A graph name is accepted wherever an
// assistant id is.
import type { Assistant, AssistantSearchRequest } from '../../../generated/agent-server/types.gen.ts';
import type { Collection, Store } from '../../runtime/store/types.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import type { GraphRegistry } from './graphs.ts';
import { nowIso, uuid5 } from './ids.ts';
import { containsAll, sortBy } from './search.ts';
import type { AssistantService } from './service.ts';

export class AssistantRegistry implements AssistantService {
  private readonly collection: Collection<Assistant>;

  constructor(
    store: Store,
    private readonly graphs: GraphRegistry,
  ) {
    this.collection = store.collection<Assistant>('assistants', { indexes: ['graph_id'] });
  }

  private graphIds(): string[] {
    return this.graphs.ids();
  }

  hasMessages(assistant: Assistant): boolean {
    return this.graphs.hasMessages(assistant.graph_id);
  }

  async registerSystemAssistants(): Promise<void> {
    for (const graphId of this.graphIds()) {
      const now = nowIso();
      await this.collection.insert(uuid5(graphId), {
        assistant_id: uuid5(graphId),
        graph_id: graphId,
        config: {},
        context: {},
        metadata: { created_by: 'system' },
        name: graphId,
        description: null,
        version: 1,
        created_at: now,
        updated_at: now,
      });
    }
  }

  async resolve(idOrGraph: string): Promise<Assistant | undefined> {
    const byGraph = this.graphIds().includes(idOrGraph) ? uuid5(idOrGraph) : idOrGraph;
    const assistant = await this.collection.get(byGraph);
    // an assistant whose graph left the configuration cannot run
    return assistant && this.graphIds().includes(assistant.graph_id) ? assistant : undefined;
  }

  async get(idOrGraph: string): Promise<Outcome<Assistant, 'not_found'>> {
    const assistant = await this.resolve(idOrGraph);
    return assistant ? ok(assistant) : fail('not_found', `Assistant '${idOrGraph}' not found`);
  }

  async search(query: AssistantSearchRequest = {}): Promise<Assistant[]> {
    const graphs = new Set(this.graphIds());
    const all = await this.collection.list({
      where: query.graph_id ? { graph_id: query.graph_id } : undefined,
      filter: (a) =>
        graphs.has(a.graph_id) &&
        (!query.name || a.name.toLowerCase().includes(query.name.toLowerCase())) &&
        (!query.metadata || containsAll(a.metadata, query.metadata)),
    });
    const sorted = sortBy(all, query.sort_by ?? 'created_at', query.sort_order ?? 'desc');
    const offset = query.offset ?? 0;
    return sorted.slice(offset, offset + (query.limit ?? 10));
  }
}
