// getAgentCard — GET /.well-known/agent-card.json[?assistant_id=]: the A2A card of an
// assistant, or of the default assistant when none is named, in the shape of the A2A version
// the request asks for (the 0.3 card without one), as the A2A JS SDK's server serves it.
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { ProjectConfig } from '../../runtime/config.ts';
import type { ServiceFor } from '../agent-server/owner.ts';
import { buildAgentCard, defaultAssistantId } from '../../domain/a2a/card.ts';
import { fail } from '../../domain/outcome.ts';
import { failed } from '../agent-server/failures.ts';
import { unknownAssistant } from './rpc.ts';
import { cardVersion, requestedVersion } from './version.ts';
import { supportedInterfaces, toV1Card, type A2AInterfaces } from './v1/card.ts';
import type { CardSigner } from './v1/cardSigning.ts';

export function getAgentCard(
  serviceFor: ServiceFor,
  project: ProjectConfig,
  version: string,
  interfaces: A2AInterfaces,
  signer?: CardSigner,
): AgentServerHandlers<RequestContext>['getAgentCard'] {
  return async (request, ctx) => {
    const { assistants } = serviceFor(ctx);
    const named = request.query.assistant_id;
    const id = named ?? defaultAssistantId(project);
    if (!id) return failed(fail('not_found', 'No default assistant: name one with ?assistant_id= or set a2a.default_assistant in agentplane.json.').failure);
    const found = await assistants.get(id);
    if (!found.ok) return unknownAssistant(id);
    const assistant = found.value;
    const card = buildAgentCard({ assistant, idAsGiven: id, baseUrl: ctx.baseUrl, hasMessages: assistants.hasMessages(assistant), version });
    const listed = supportedInterfaces(interfaces(), { baseUrl: ctx.baseUrl, assistantId: id });
    // one cache entry per version: the body depends on A2A-Version
    const headers = { Vary: 'A2A-Version' };
    if (cardVersion(requestedVersion(request.headers['a2a-version'], request.query['A2A-Version'])) === '0.3') {
      return { status: 200, headers, body: { ...card, supportedInterfaces: listed } };
    }
    const v1 = toV1Card(card, listed);
    return { status: 200, headers, body: signer ? await signer(v1) : v1 };
  };
}
