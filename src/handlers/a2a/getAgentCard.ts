// getAgentCard — GET /.well-known/agent-card.json[?assistant_id=]: the A2A card of an
// assistant, or of the default assistant when none is named.
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { ProjectConfig } from '../../runtime/config.ts';
import type { ServiceFor } from '../agent-server/owner.ts';
import { buildAgentCard, defaultAssistantId } from '../../domain/a2a/card.ts';
import { fail } from '../../domain/outcome.ts';
import { failed } from '../agent-server/failures.ts';
import { unknownAssistant } from './rpc.ts';

export function getAgentCard(serviceFor: ServiceFor, project: ProjectConfig, version: string): AgentServerHandlers<RequestContext>['getAgentCard'] {
  return async (request, ctx) => {
    const { assistants } = serviceFor(ctx);
    const named = request.query.assistant_id;
    const id = named ?? defaultAssistantId(project);
    if (!id) return failed(fail('not_found', 'No default assistant: name one with ?assistant_id= or set a2a.default_assistant in agentplane.json.').failure);
    const found = await assistants.get(id);
    if (!found.ok) return unknownAssistant(id);
    const assistant = found.value;
    const card = buildAgentCard({ assistant, idAsGiven: id, baseUrl: ctx.baseUrl, hasMessages: assistants.hasMessages(assistant), version });
    return { status: 200, body: card };
  };
}
