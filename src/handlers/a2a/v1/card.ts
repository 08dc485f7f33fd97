// The A2A v1.0 agent card (§4.4, §8) of an assistant, built from its 0.3 card and the
// interfaces the server serves. Which interfaces those are is composition's business (a
// binding on a port of its own is listed only while it serves): this module receives them
// in order of preference and only writes their URLs for the request's base and assistant.
import type * as V1 from '../../../../generated/a2a-v1/types.gen.ts';
import type { AgentCard, AgentSecuritySchemeV03 } from '../../../../generated/agent-server/types.gen.ts';

export type A2ABinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** Where one interface of an assistant is reached, for the base URL a request reached the server at. */
export interface A2AInterface {
  binding: A2ABinding;
  /** `Major.Minor`. */
  version: '1.0' | '0.3';
  url(at: { baseUrl: string; assistantId: string }): string;
  /** AgentInterface.tenant, when the URL does not name the assistant (one gRPC port for all of them). */
  tenant?(at: { baseUrl: string; assistantId: string }): string;
}

/** The interfaces served now, in order of preference; asked on every card request. */
export type A2AInterfaces = () => readonly A2AInterface[];

/** `<base>/a2a/<assistant id as given>`: the JSON-RPC endpoint, for both versions. */
export const jsonRpcUrl = ({ baseUrl, assistantId }: { baseUrl: string; assistantId: string }) =>
  `${baseUrl.replace(/\/+$/, '')}/a2a/${encodeURIComponent(assistantId)}`;

export const JSONRPC_V1: A2AInterface = { binding: 'JSONRPC', version: '1.0', url: jsonRpcUrl };
export const JSONRPC_V03: A2AInterface = { binding: 'JSONRPC', version: '0.3', url: jsonRpcUrl };

/**
 * The interface list of a server that serves only JSON-RPC: 1.0 first, then 0.3 (so a v0.3
 * client still finds the endpoint). Other bindings go between the two (compose's order).
 */
export const jsonRpcOnly: A2AInterfaces = () => [JSONRPC_V1, JSONRPC_V03];

export function supportedInterfaces(interfaces: readonly A2AInterface[], at: { baseUrl: string; assistantId: string }): V1.AgentInterface[] {
  return interfaces.map((i) => ({ url: i.url(at), protocolBinding: i.binding, ...(i.tenant ? { tenant: i.tenant(at) } : {}), protocolVersion: i.version }));
}

/**
 * The v1.0 card: the 0.3 card's description, modes and skill, the interfaces, and v1.0
 * capabilities; `extended` says an operator configured an extended card (a2a.extended_card).
 */
export function toV1Card(card: AgentCard, interfaces: V1.AgentInterface[], extended = false): V1.AgentCard {
  return {
    name: card.name,
    description: card.description,
    supportedInterfaces: interfaces,
    version: card.version,
    // push notifications: a task's webhooks (CreateTaskPushNotificationConfig)
    capabilities: { streaming: card.capabilities.streaming ?? true, pushNotifications: true, extendedAgentCard: extended },
    ...(card.securitySchemes ? { securitySchemes: Object.fromEntries(Object.entries(card.securitySchemes).map(([name, s]) => [name, toV1Scheme(s)])) } : {}),
    ...(card.security ? { securityRequirements: card.security.map(toV1Requirement) } : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      ...((skill as { examples?: string[] }).examples ? { examples: (skill as { examples?: string[] }).examples } : {}),
      ...(skill.inputModes ? { inputModes: skill.inputModes } : {}),
      ...(skill.outputModes ? { outputModes: skill.outputModes } : {}),
    })),
  };
}

/** A 0.3 (OpenAPI 3) security scheme as the v1.0 SecurityScheme, the member of its type set. */
export function toV1Scheme(scheme: AgentSecuritySchemeV03): V1.SecurityScheme {
  const description = scheme.description ? { description: scheme.description } : {};
  switch (scheme.type) {
    case 'apiKey':
      return { apiKeySecurityScheme: { ...description, location: scheme.in ?? 'header', name: scheme.name ?? '' } };
    case 'http':
      return {
        httpAuthSecurityScheme: { ...description, scheme: scheme.scheme ?? 'bearer', ...(scheme.bearerFormat ? { bearerFormat: scheme.bearerFormat } : {}) },
      };
    case 'oauth2':
      return {
        oauth2SecurityScheme: {
          ...description,
          flows: (scheme.flows ?? {}) as V1.OAuthFlows,
          ...(scheme.oauth2MetadataUrl ? { oauth2MetadataUrl: scheme.oauth2MetadataUrl } : {}),
        },
      };
    case 'openIdConnect':
      return { openIdConnectSecurityScheme: { ...description, openIdConnectUrl: scheme.openIdConnectUrl ?? '' } };
    case 'mutualTLS':
      return { mtlsSecurityScheme: description };
  }
}

/** A 0.3 requirement ({scheme: scopes}) as the v1.0 SecurityRequirement ({schemes: {scheme: {list}}}). */
export const toV1Requirement = (requirement: Record<string, string[]>): V1.SecurityRequirement => ({
  schemes: Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [name, { list: scopes }])),
});

/** What an operator's extended card (a2a.extended_card in the project file) adds to a public v1.0 card. */
export interface CardExtension {
  description?: string;
  skills?: V1.AgentSkill[];
}

/** The authenticated extended card: the public card with the operator's description and skills after its own. */
export const extendedV1Card = (card: V1.AgentCard, extension: CardExtension): V1.AgentCard => ({
  ...card,
  ...(extension.description ? { description: extension.description } : {}),
  skills: [...card.skills, ...(extension.skills ?? [])],
});
