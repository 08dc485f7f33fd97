// getAgentCard — GET /.well-known/agent-card.json[?assistant_id=]: the A2A card of an
// assistant, or of the default assistant when none is named, in the shape of the A2A version
// the request asks for (the 0.3 card without one), as the A2A JS SDK's server serves it.
// getAgentCardLegacy — GET /.well-known/agent.json: the 0.3 card, at A2A 0.2's path.
// getAgentCardJwks — GET /.well-known/agent-card-jwks.json: the keys that verify the cards.
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { Assistant, GetAgentCard200Body } from '../../../generated/agent-server/types.gen.ts';
import type * as V1 from '../../../generated/a2a-v1/types.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { ProjectConfig } from '../../runtime/config.ts';
import type { ServiceFor } from '../agent-server/owner.ts';
import { buildAgentCard, defaultAssistantId } from '../../domain/a2a/card.ts';
import type { CardSecurity } from '../../domain/a2a/cardSecurity.ts';
import { fail } from '../../domain/outcome.ts';
import { failed } from '../agent-server/failures.ts';
import { unknownAssistant } from './rpc.ts';
import { cardVersion, requestedVersion } from '../../shared/a2aVersion.ts';
import { extendedV1Card, supportedInterfaces, toV1Card, type A2AInterfaces, type CardExtension } from './v1/card.ts';
import type { CardSigner } from './v1/cardSigning.ts';

type CardVersion = '0.3' | '1.0';

/** The card of the assistant a request names (or the default one) in `version`'s shape, signed when a key is configured. */
/** What every card of this server shares: its version, interfaces, signer and declared security (cardSecurity.ts). */
export interface CardSetting {
  version: string;
  interfaces: A2AInterfaces;
  signer?: CardSigner;
  security?: CardSecurity;
  /** a2a.extended_card: set, the v1.0 cards declare an extended card and GetExtendedAgentCard answers it. */
  extension?: CardExtension;
}

/** The public v1.0 card of an assistant named as given, unsigned. */
async function publicV1Card(
  serviceFor: ServiceFor,
  { version, interfaces, security, extension }: CardSetting,
  assistant: Assistant,
  id: string,
  ctx: RequestContext,
) {
  const { assistants } = serviceFor(ctx);
  const card = buildAgentCard({ assistant, idAsGiven: id, baseUrl: ctx.baseUrl, hasMessages: await assistants.hasMessages(assistant), version, security });
  return toV1Card(card, supportedInterfaces(interfaces(), { baseUrl: ctx.baseUrl, assistantId: id }), extension !== undefined);
}

/**
 * GetExtendedAgentCard's card, when an operator configured one: to an authenticated caller (an
 * API key's tenant, or a user of the project's custom auth) the public card with the extension,
 * to anyone else the public card, as @a2a-js/sdk 1.3.0's DefaultRequestHandler answers a caller
 * that is not authenticated. Signed as the public cards are.
 */
export function extendedCardOf(
  serviceFor: ServiceFor,
  setting: CardSetting,
): ((assistant: Assistant, ctx: RequestContext) => Promise<V1.AgentCard>) | undefined {
  const { extension, signer } = setting;
  if (!extension) return undefined;
  return async (assistant, ctx) => {
    const card = await publicV1Card(serviceFor, setting, assistant, assistant.assistant_id, ctx);
    const authenticated = ctx.tenantId !== null || ctx.user !== undefined;
    const body = authenticated ? extendedV1Card(card, extension) : card;
    return (signer ? await signer.sign(body as GetAgentCard200Body, ctx.baseUrl) : body) as V1.AgentCard;
  };
}

function cardOf(serviceFor: ServiceFor, project: ProjectConfig, setting: CardSetting) {
  const { version, interfaces, signer, security } = setting;
  return async (named: string | undefined, shape: CardVersion, ctx: RequestContext) => {
    const { assistants } = serviceFor(ctx);
    const id = named ?? defaultAssistantId(project);
    if (!id) return failed(fail('not_found', 'No default assistant: name one with ?assistant_id= or set a2a.default_assistant in agentplane.json.').failure);
    const found = await assistants.get(id);
    if (!found.ok) return unknownAssistant(id);
    const assistant = found.value;
    const card = buildAgentCard({ assistant, idAsGiven: id, baseUrl: ctx.baseUrl, hasMessages: await assistants.hasMessages(assistant), version, security });
    const listed = supportedInterfaces(interfaces(), { baseUrl: ctx.baseUrl, assistantId: id });
    // the v1.0 card as the agent-server document declares it (AgentCardV1), the same fields as the A2A document's
    const body = (
      shape === '0.3' ? { ...card, supportedInterfaces: listed } : await publicV1Card(serviceFor, setting, assistant, id, ctx)
    ) as GetAgentCard200Body;
    return { status: 200 as const, body: signer ? await signer.sign(body, ctx.baseUrl) : body };
  };
}

export function getAgentCard(serviceFor: ServiceFor, project: ProjectConfig, setting: CardSetting): AgentServerHandlers<RequestContext>['getAgentCard'] {
  const card = cardOf(serviceFor, project, setting);
  return async (request, ctx) => {
    const shape = cardVersion(requestedVersion(request.headers['a2a-version'], request.query['A2A-Version'])) === '0.3' ? '0.3' : '1.0';
    const reply = await card(request.query.assistant_id, shape, ctx);
    // one cache entry per version: the body depends on A2A-Version
    return 'body' in reply && reply.status === 200 ? { ...reply, headers: { Vary: 'A2A-Version' } } : reply;
  };
}

export function getAgentCardLegacy(
  serviceFor: ServiceFor,
  project: ProjectConfig,
  setting: CardSetting,
): AgentServerHandlers<RequestContext>['getAgentCardLegacy'] {
  const card = cardOf(serviceFor, project, setting);
  return (request, ctx) => card(request.query.assistant_id, '0.3', ctx) as ReturnType<AgentServerHandlers<RequestContext>['getAgentCardLegacy']>;
}

export function getAgentCardJwks(signer?: CardSigner): AgentServerHandlers<RequestContext>['getAgentCardJwks'] {
  return async () =>
    signer
      ? { status: 200, body: signer.jwks as never }
      : { status: 404, body: { detail: 'No agent card signing key is configured (AGENTPLANE_A2A_SIGNING_KEY).' } };
}
