// getAssistant (GET /assistants/{assistant_id}) and searchAssistants (POST /assistants/search).
import type { AgentDomain } from '../../domain/agent/agentService.ts';
import type { AgentServerAreaHandlers } from './index.ts';
import { notFound } from './replies.ts';

export function assistantHandlers(domain: AgentDomain): Pick<AgentServerAreaHandlers, 'getAssistant' | 'searchAssistants'> {
  return {
    async getAssistant({ path }) {
      const assistant = await domain.resolveAssistant(path.assistant_id);
      return assistant ? { status: 200, body: assistant } : notFound(`Assistant '${path.assistant_id}' not found`);
    },
    async searchAssistants({ body }) {
      return { status: 200, body: await domain.searchAssistants(body ?? {}) };
    },
  };
}
