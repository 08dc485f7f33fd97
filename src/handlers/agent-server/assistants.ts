// getAssistant (GET /assistants/{assistant_id}) and searchAssistants (POST /assistants/search).
import type { AssistantService } from '../../domain/agent/service.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { failed } from './failures.ts';

export function assistantHandlers(assistants: AssistantService): Pick<AgentServerAreaHandlers, 'getAssistant' | 'searchAssistants'> {
  return {
    async getAssistant({ path }) {
      const outcome = await assistants.get(path.assistant_id);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async searchAssistants({ body }) {
      return { status: 200, body: await assistants.search(body ?? {}) };
    },
  };
}
