// System assistants: one per configured graph, id = uuid5 of the graph name, upserted at
// start so their created_at survives restarts. A graph name is accepted wherever an
// assistant id is. An AssistantRegistry serves one owner (see ownerOf): it sees the system
// assistants (shared, read-only) and the owner's own; another owner's are answered as
// missing ones, though their ids cannot be taken.
import type {
  Assistant,
  AssistantCountRequest,
  AssistantCreate,
  AssistantPatch,
  AssistantSearchRequest,
  AssistantVersion,
  AssistantVersionsRequest,
} from '../../../generated/agent-server/types.gen.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import type { GraphRegistry } from './graphs/graphs.ts';
import { nowIso } from '../clock.ts';
import { uuid4, uuid5 } from './ids.ts';
import { drawGraph, graphSchemas, subgraphSchemas, type Drawing, type GraphSchemas, type SubgraphSchemas } from './graphs/graphShapes.ts';
import { ownerOf } from './records.ts';
import { metadataContains } from './search.ts';
import type { AssistantFilter, AssistantRecord, AssistantsRepository } from '../ports/assistantsRepository.ts';
import type { AssistantService } from './service.ts';

const toApi = (record: AssistantRecord): Assistant => {
  const { owner: _owner, ...assistant } = record;
  return assistant;
};

/** The upstream JS server's wording (its list of versions says it differently, see listVersions). */
const assistantNotFound = () => fail('not_found', 'Assistant not found');

export class AssistantRegistry implements AssistantService {
  constructor(
    /** The assistants and their versions, their searches and counts (in SQL on PostgreSQL). */
    private readonly assistants: AssistantsRepository,
    private readonly graphs: GraphRegistry,
    /** Whose assistants these are, besides the shared system ones (see ownerOf). */
    private readonly owner: string,
  ) {}

  /** System assistants (the server's, with no owner) are everyone's; the rest only their owner's. */
  private readonly visible = (a: AssistantRecord) => (a.owner === undefined && a.assistant_id === uuid5(a.graph_id)) || ownerOf(a) === this.owner;

  private graphIds(): string[] {
    return this.graphs.ids();
  }

  hasMessages(assistant: Assistant): Promise<boolean> {
    return this.graphs.hasMessages(assistant.graph_id);
  }

  /**
   * A system assistant per graph that has none yet, with its defaults (LANGGRAPH_CONFIG:
   * `context` apart, the rest is its config). Like upstream, an existing one is kept as it is.
   */
  async registerSystemAssistants(defaults: Record<string, Record<string, unknown>> = {}): Promise<void> {
    for (const graphId of this.graphIds()) {
      const now = nowIso();
      const { context = {}, ...config } = defaults[graphId] ?? {};
      const assistant: Assistant = {
        assistant_id: uuid5(graphId),
        graph_id: graphId,
        config,
        context: context as Assistant['context'],
        metadata: { created_by: 'system' },
        name: graphId,
        description: null,
        version: 1,
        created_at: now,
        updated_at: now,
      };
      await this.assistants.addIfAbsent(assistant, toVersion(assistant));
    }
  }

  async create(body: AssistantCreate): Promise<Outcome<Assistant, 'not_found' | 'conflict'>> {
    if (!this.graphIds().includes(body.graph_id)) return fail('not_found', `Graph '${body.graph_id}' not found`);
    const id = body.assistant_id ?? uuid4();
    const existing = await this.assistants.get(id);
    // ids are one space for every owner: another's is taken, and nothing more is said of it
    if (existing) return body.if_exists === 'do_nothing' && this.visible(existing) ? ok(toApi(existing)) : fail('conflict', 'Assistant already exists');
    const now = nowIso();
    const assistant: AssistantRecord = {
      assistant_id: id,
      ...(this.owner ? { owner: this.owner } : {}),
      graph_id: body.graph_id,
      config: body.config ?? {},
      context: body.context ?? {},
      metadata: body.metadata ?? {},
      name: body.name ?? 'Untitled',
      description: body.description ?? null,
      version: 1,
      created_at: now,
      updated_at: now,
    };
    await this.assistants.save(assistant, toVersion(assistant));
    return ok(toApi(assistant));
  }

  /** A new version with the given fields (metadata merged), made the latest. */
  async patch(idOrGraph: string, body: AssistantPatch): Promise<Outcome<Assistant, 'not_found' | 'conflict'>> {
    const current = await this.find(idOrGraph);
    if (!current) return assistantNotFound();
    if (isSystem(current)) return systemConflict(current);
    if (body.graph_id && !this.graphIds().includes(body.graph_id)) return fail('not_found', `Graph '${body.graph_id}' not found`);
    const versions = await this.assistants.versionsOf(current.assistant_id);
    const version = Math.max(current.version, ...versions.map((v) => v.version)) + 1;
    const next: AssistantRecord = {
      ...current,
      graph_id: body.graph_id ?? current.graph_id,
      config: body.config ?? current.config,
      context: body.context ?? current.context,
      metadata: { ...current.metadata, ...body.metadata },
      name: body.name ?? current.name,
      description: body.description !== undefined ? body.description : current.description,
      version,
      updated_at: nowIso(),
    };
    await this.assistants.save(next, toVersion(next));
    return ok(toApi(next));
  }

  async delete(idOrGraph: string): Promise<Outcome<void, 'not_found' | 'conflict'>> {
    const current = await this.find(idOrGraph);
    if (!current) return assistantNotFound();
    if (isSystem(current)) return systemConflict(current);
    await this.assistants.delete(current.assistant_id);
    return ok(undefined);
  }

  async count(query: AssistantCountRequest = {}): Promise<number> {
    return this.assistants.count(this.filter(query));
  }

  async listVersions(idOrGraph: string, query: AssistantVersionsRequest = {}): Promise<Outcome<AssistantVersion[], 'not_found'>> {
    const current = await this.find(idOrGraph);
    if (!current) return fail('not_found', `Assistant "${idOrGraph}" not found.`);
    const all = await this.assistants.versionsOf(current.assistant_id, metadataContains(query.metadata)?.metadata);
    const offset = query.offset ?? 0;
    return ok(all.sort((a, b) => b.version - a.version).slice(offset, offset + (query.limit ?? 10)));
  }

  async setLatest(idOrGraph: string, version: number): Promise<Outcome<Assistant, 'not_found' | 'conflict'>> {
    const current = await this.find(idOrGraph);
    if (!current) return assistantNotFound();
    if (isSystem(current)) return systemConflict(current);
    const chosen = await this.assistants.version(current.assistant_id, version);
    if (!chosen) return fail('not_found', 'Assistant version not found');
    const next: AssistantRecord = { ...current, ...chosen, description: chosen.description ?? null, updated_at: nowIso() };
    await this.assistants.put(next);
    return ok(toApi(next));
  }

  async drawing(idOrGraph: string, xray: boolean | number): Promise<Outcome<Drawing, 'not_found'>> {
    const graph = await this.graphOf(idOrGraph);
    return graph.ok ? ok(await drawGraph(graph.value, xray)) : graph;
  }

  async schemas(idOrGraph: string, options: { readTypes?: boolean } = {}): Promise<Outcome<GraphSchemas, 'not_found'>> {
    const graph = await this.graphOf(idOrGraph);
    return graph.ok ? ok(await graphSchemas(graph.value, options)) : graph;
  }

  async subgraphs(idOrGraph: string, namespace: string | undefined, recurse: boolean): Promise<Outcome<Record<string, SubgraphSchemas>, 'not_found'>> {
    const graph = await this.graphOf(idOrGraph);
    return graph.ok ? ok(await subgraphSchemas(graph.value, namespace, recurse)) : graph;
  }

  private async graphOf(idOrGraph: string) {
    const assistant = await this.resolve(idOrGraph);
    const graph = assistant ? await this.graphs.resolve(assistant.graph_id, assistant.config as Record<string, unknown>) : undefined;
    return graph ? ok(graph) : assistantNotFound();
  }

  async resolve(idOrGraph: string): Promise<Assistant | undefined> {
    const found = await this.find(idOrGraph);
    return found && toApi(found);
  }

  /** The stored assistant (with its owner) when this owner may see it. */
  private async find(idOrGraph: string): Promise<AssistantRecord | undefined> {
    const byGraph = this.graphIds().includes(idOrGraph) ? uuid5(idOrGraph) : idOrGraph;
    const assistant = await this.assistants.get(byGraph);
    // an assistant whose graph left the configuration cannot run
    return assistant && this.graphIds().includes(assistant.graph_id) && this.visible(assistant) ? assistant : undefined;
  }

  async get(idOrGraph: string): Promise<Outcome<Assistant, 'not_found'>> {
    const assistant = await this.resolve(idOrGraph);
    return assistant ? ok(assistant) : assistantNotFound();
  }

  /** The request's filters, on what this owner may see of the configured graphs' assistants. */
  private filter(query: { graph_id?: string; name?: string; metadata?: object }): AssistantFilter {
    const graphIds = this.graphIds();
    return {
      owner: this.owner,
      systemIds: graphIds.map((g) => uuid5(g)),
      graphIds,
      ...(query.graph_id ? { graph_id: query.graph_id } : {}),
      ...(query.name ? { name: query.name } : {}),
      ...(query.metadata && typeof query.metadata === 'object' ? { metadata: query.metadata as Record<string, unknown> } : {}),
    };
  }

  async search(query: AssistantSearchRequest = {}): Promise<Assistant[]> {
    const page = { sortBy: query.sort_by ?? 'created_at', order: query.sort_order ?? 'desc', offset: query.offset ?? 0, limit: query.limit ?? 10 } as const;
    return (await this.assistants.search(this.filter(query), page)).map(toApi);
  }
}

function toVersion(a: Assistant): AssistantVersion {
  return {
    assistant_id: a.assistant_id,
    graph_id: a.graph_id,
    config: a.config,
    context: a.context,
    metadata: a.metadata,
    version: a.version,
    created_at: a.updated_at,
    name: a.name,
    description: a.description ?? null,
  };
}

/** System assistants mirror their configured graph: changing one would change every caller's default. */
const isSystem = (a: Assistant) => (a.metadata as Record<string, unknown>)?.created_by === 'system';
const systemConflict = (a: Assistant) => fail('conflict', `System assistant '${a.name}' cannot be changed; create an assistant for its graph instead`);
