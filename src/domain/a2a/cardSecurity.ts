// What an agent card says about authentication: the schemes the server accepts for A2A calls
// and which of them a request must satisfy, so a client that starts from the card alone knows
// how to authenticate (A2A §4.5). API keys (auth.agent_server) are read from X-Api-Key or as a
// bearer token; the project's custom auth reads what its handler reads, which only the operator
// can describe (a2a.security_schemes: OAuth 2.0, OpenID Connect, …), a bearer token unless told.
// Written in the 0.3 card's shape (OpenAPI 3 scheme objects); the v1.0 card converts it.
import type { AgentSecuritySchemeV03 } from '../../../generated/agent-server/types.gen.ts';
import type { ProjectFile } from '../../../generated/project/types.gen.ts';

type ConfiguredSchemes = NonNullable<NonNullable<ProjectFile['a2a']>['security_schemes']>;

export interface CardSecurity {
  securitySchemes: Record<string, AgentSecuritySchemeV03>;
  /** Alternatives: a request satisfies one entry, every scheme it names (with those scopes). */
  security: Record<string, string[]>[];
}

export interface AuthInForce {
  /** API keys are required on the agent server (auth.agent_server). */
  apiKeys: boolean;
  /** The project's custom auth (auth.path) is configured. */
  customAuth: boolean;
  /** a2a.security_schemes: what the custom auth accepts, as the operator describes it. */
  configured?: ConfiguredSchemes;
}

const API_KEY: AgentSecuritySchemeV03 = { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An agentplane API key.' };
const KEY_AS_BEARER: AgentSecuritySchemeV03 = { type: 'http', scheme: 'bearer', description: 'An agentplane API key as a bearer token.' };
const PROJECT_BEARER: AgentSecuritySchemeV03 = { type: 'http', scheme: 'bearer', description: "A bearer token the project's auth accepts." };

/** The card's security, or undefined when no auth is in force (anonymous calls are served). */
export function cardSecurity(auth: AuthInForce): CardSecurity | undefined {
  const keys = auth.apiKeys ? { ApiKey: API_KEY, BearerAuth: KEY_AS_BEARER } : undefined;
  const project = auth.customAuth ? projectSchemes(auth.configured) : undefined;
  if (!keys && !project) return undefined;
  if (!project) return { securitySchemes: keys!, security: [{ ApiKey: [] }, { BearerAuth: [] }] };
  if (!keys) return { securitySchemes: project.schemes, security: project.requirements };
  // both in force: a request carries an API key and what the project's auth accepts
  return {
    securitySchemes: { ApiKey: API_KEY, ...project.schemes },
    security: project.requirements.map((requirement) => ({ ApiKey: [], ...requirement })),
  };
}

function projectSchemes(configured: ConfiguredSchemes | undefined): {
  schemes: Record<string, AgentSecuritySchemeV03>;
  requirements: Record<string, string[]>[];
} {
  const entries = Object.entries(configured ?? {});
  if (entries.length === 0) return { schemes: { BearerAuth: PROJECT_BEARER }, requirements: [{ BearerAuth: [] }] };
  return {
    schemes: Object.fromEntries(entries.map(([name, { scopes: _scopes, ...scheme }]) => [name, scheme])),
    requirements: entries.map(([name, scheme]) => ({ [name]: scheme.scopes ?? [] })),
  };
}
