// What the auth service needs from an OAuth 2.0 authorization server, spoken over HTTP by an
// adapter (adapters/oauth/): the token endpoint (code exchange, refresh), revocation (RFC 7009)
// and, for MCP servers, discovery (RFC 9728 → RFC 8414) and dynamic registration (RFC 7591).
// Building the authorization URL and PKCE is the domain's own (agentAuth/flowRules.ts).

export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** A provider's endpoints and the client registered there. */
export interface OAuthEndpoints {
  tokenUrl: string;
  revocationUrl: string | null;
  clientId: string;
  clientSecret: string | null;
  authMethod: TokenEndpointAuthMethod;
}

/** A token endpoint's answer (RFC 6749 §5.1); `expiresIn` in seconds when the server said. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresIn: number | null;
  /** The scopes granted, when the server names them (it may grant fewer than asked). */
  scope: string | null;
}

/** What an MCP server's metadata says about the authorization server protecting it. */
export interface DiscoveredServer {
  authUrl: string;
  tokenUrl: string;
  revocationUrl: string | null;
  registrationUrl: string | null;
  /** The server offers PKCE with S256. */
  pkceS256: boolean;
  authMethods: TokenEndpointAuthMethod[];
}

export interface RegisteredClient {
  clientId: string;
  clientSecret: string | null;
  authMethod: TokenEndpointAuthMethod;
}

/** An authorization server refused or answered something unusable; `message` says which step. */
export class OAuthFailure extends Error {
  constructor(
    message: string,
    /** The server answered `invalid_grant` (a refresh token revoked or expired). */
    readonly invalidGrant = false,
  ) {
    super(message);
    this.name = 'OAuthFailure';
  }
}

export interface OAuthClient {
  exchangeCode(endpoints: OAuthEndpoints, code: string, redirectUri: string, codeVerifier: string | null): Promise<IssuedTokens>;
  refresh(endpoints: OAuthEndpoints, refreshToken: string): Promise<IssuedTokens>;
  /** RFC 7009; resolves when the server accepted it. */
  revoke(endpoints: OAuthEndpoints & { revocationUrl: string }, token: string, hint: 'access_token' | 'refresh_token'): Promise<void>;
  discoverMcp(mcpServerUrl: string): Promise<DiscoveredServer>;
  register(registrationUrl: string, redirectUri: string, clientName: string, authMethod: TokenEndpointAuthMethod): Promise<RegisteredClient>;
}
