// Assistants: get, search, create, patch (a new version), delete, count, versions, set
// latest, and the graph's drawing, schemas and subgraphs.
import type { AssistantService, ThreadService } from '../../domain/agent/service.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { failed } from './failures.ts';
import { flag } from './replies.ts';

type AssistantOps =
  | 'getAssistant'
  | 'searchAssistants'
  | 'createAssistant'
  | 'patchAssistant'
  | 'deleteAssistant'
  | 'countAssistants'
  | 'listAssistantVersions'
  | 'setLatestAssistantVersion'
  | 'getAssistantGraph'
  | 'getAssistantSchemas'
  | 'getAssistantSubgraphs'
  | 'getAssistantSubgraphsByNamespace';

/** `xray` arrives as a flag or a depth. */
const xrayOf = (value: unknown): boolean | number =>
  typeof value === 'number' ? value : /^\d+$/.test(String(value)) && String(value) !== '1' && String(value) !== '0' ? Number(value) : flag(value);

export function assistantHandlers(
  assistantsFor: (ctx: RequestContext) => AssistantService,
  threadsFor: (ctx: RequestContext) => ThreadService,
): Pick<AgentServerAreaHandlers, AssistantOps> {
  return {
    async getAssistant({ path }, ctx) {
      const assistants = assistantsFor(ctx);
      const outcome = await assistants.get(path.assistant_id);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async searchAssistants({ body }, ctx) {
      const assistants = assistantsFor(ctx);
      const query = body ?? {};
      const found = await assistants.search(query);
      const offset = query.offset ?? 0;
      const limit = query.limit ?? 10;
      // as upstream: the next page's offset while a full page came back
      const headers = found.length === limit ? { 'X-Pagination-Next': String(offset + limit) } : undefined;
      const selected = query.select?.length ? found.map((a) => Object.fromEntries(query.select!.map((field) => [field, a[field as keyof typeof a]]))) : found;
      return { status: 200, headers, body: selected as typeof found };
    },
    async createAssistant({ body }, ctx) {
      const assistants = assistantsFor(ctx);
      const outcome = await assistants.create(body);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async patchAssistant({ path, body }, ctx) {
      const assistants = assistantsFor(ctx);
      const outcome = await assistants.patch(path.assistant_id, body);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async deleteAssistant({ path, query }, ctx) {
      const assistants = assistantsFor(ctx);
      const outcome = await assistants.delete(path.assistant_id);
      if (!outcome.ok) return failed(outcome.failure);
      // only a created assistant can be deleted, so the path holds its id (never a graph name)
      if (flag(query.delete_threads)) await threadsFor(ctx).deleteOfAssistant(path.assistant_id);
      return { status: 204 };
    },
    async countAssistants({ body }, ctx) {
      const assistants = assistantsFor(ctx);
      return { status: 200, body: await assistants.count(body ?? {}) };
    },
    async listAssistantVersions({ path, body }, ctx) {
      const assistants = assistantsFor(ctx);
      const outcome = await assistants.listVersions(path.assistant_id, body ?? {});
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async setLatestAssistantVersion({ path, body }, ctx) {
      const assistants = assistantsFor(ctx);
      const outcome = await assistants.setLatest(path.assistant_id, body.version);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async getAssistantGraph({ path, query }, ctx) {
      const assistants = assistantsFor(ctx);
      const outcome = await assistants.drawing(path.assistant_id, xrayOf(query.xray));
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async getAssistantSchemas({ path }, ctx) {
      const assistants = assistantsFor(ctx);
      const outcome = await assistants.schemas(path.assistant_id);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async getAssistantSubgraphs({ path, query }, ctx) {
      const assistants = assistantsFor(ctx);
      const outcome = await assistants.subgraphs(path.assistant_id, undefined, flag(query.recurse));
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async getAssistantSubgraphsByNamespace({ path, query }, ctx) {
      const assistants = assistantsFor(ctx);
      const outcome = await assistants.subgraphs(path.assistant_id, path.namespace, flag(query.recurse));
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
  };
}
