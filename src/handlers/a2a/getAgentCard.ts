// getAgentCard — GET /.well-known/agent-card.json[?assistant_id=]: the A2A card of an
// assistant, or of the default assistant when none is named.
import type { GetAgentCardRequest, GetAgentCardResponse } from '../../../generated/agent-server/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { ProjectConfig } from '../../runtime/config.ts';
import type { AgentService } from '../../domain/agent/service.ts';
import { buildAgentCard, defaultAssistantId } from '../../domain/a2a/card.ts';

export function getAgentCard(agent: AgentService, project: ProjectConfig, version: string) {
  return async (request: GetAgentCardRequest, ctx: RequestContext): Promise<GetAgentCardResponse> => {
    const named = request.query.assistant_id;
    const id = named ?? defaultAssistantId(project);
    if (!id) return { status: 404, body: { detail: 'No default assistant: name one with ?assistant_id= or set a2a.default_assistant in agentplane.json.' } };
    const assistant = await agent.assistants.resolve(id);
    if (!assistant) return { status: 404, body: { detail: `Assistant '${id}' not found` } };
    const card = buildAgentCard({ assistant, idAsGiven: id, baseUrl: ctx.baseUrl, hasMessages: agent.assistants.hasMessages(assistant), version });
    return { status: 200, body: card };
  };
}
