// The A2A 0.3.0 agent card of one assistant, and the choice of the default assistant that
// the bare /.well-known/agent-card.json describes.
import type { AgentCard, AgentSkill } from '../../../generated/agent-server/types.gen.ts';
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';
import type { ProjectFile as ProjectConfig } from '../../../generated/project/types.gen.ts';
import type { CardSecurity } from './cardSecurity.ts';

export const A2A_PROTOCOL_VERSION = '0.3.0';

export interface CardInput {
  assistant: Assistant;
  /** The assistant id as the client named it (graph name or UUID); the card's url keeps it. */
  idAsGiven: string;
  baseUrl: string;
  hasMessages: boolean;
  /** The server's version (upstream reports its package version). */
  version: string;
  /** How to authenticate (cardSecurity.ts); absent when anonymous calls are served. */
  security?: CardSecurity;
}

export function buildAgentCard({ assistant, idAsGiven, baseUrl, hasMessages, version, security }: CardInput): AgentCard {
  const name = assistant.name || assistant.graph_id;
  const base = assistant.description || `${name} assistant`;
  // without a `messages` key the graph cannot take text, and clients should know before trying
  const description = hasMessages
    ? base
    : `${base}. Its graph state has no 'messages' key: send input as data parts (application/json); text parts are refused.`;
  const inputModes = hasMessages ? ['application/json', 'text/plain'] : ['application/json'];
  const outputModes = hasMessages ? ['application/json', 'text/plain'] : ['application/json'];
  // `examples` is a real AgentSkill field that the type generator reads as an annotation
  const skill: AgentSkill & { examples: string[] } = {
    id: `${assistant.graph_id}-main`,
    name: `${name} Capabilities`,
    description: hasMessages ? `Chat with the ${assistant.graph_id} graph.` : `Run the ${assistant.graph_id} graph on data input.`,
    tags: ['assistant', 'langgraph'],
    examples: [],
    inputModes,
    outputModes,
  };
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name,
    description,
    url: `${baseUrl.replace(/\/+$/, '')}/a2a/${encodeURIComponent(idAsGiven)}`,
    preferredTransport: 'JSONRPC',
    version,
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: inputModes,
    defaultOutputModes: outputModes,
    skills: [skill],
    ...(security ? { securitySchemes: security.securitySchemes, security: security.security } : {}),
  };
}

/** `a2a.default_assistant` from agentplane.json, else the first configured graph. */
export function defaultAssistantId(project: ProjectConfig): string | undefined {
  const configured = project.a2a?.default_assistant;
  if (typeof configured === 'string' && configured) return configured;
  return Object.keys(project.graphs ?? {})[0];
}
