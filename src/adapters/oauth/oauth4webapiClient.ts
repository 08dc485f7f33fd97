// The auth service's OAuth client over oauth4webapi (a dependency-free, conformance-certified
// OAuth 2 / OpenID client on fetch): code exchange, refresh, RFC 7009 revocation, RFC 8414 /
// OpenID discovery and RFC 7591 registration. RFC 9728 protected resource metadata is read
// here too, from where the MCP server's 401 points or its well-known URL. Every request has a
// time limit; plain http is refused unless the operator allows it (loopback tests, dev). Every
// request goes through the guarded fetch: non-public addresses are refused unless the operator
// allows them (AGENTPLANE_AUTH_ALLOWED_NETWORKS), and redirects are never followed.
import * as oauth from 'oauth4webapi';
import { addressCheck } from '../webhooks/webhookAddresses.ts';
import { RefusedAddress } from '../webhooks/webhookTransport.ts';
import { guardedFetch, type GuardedFetch } from './guardedFetch.ts';
import {
  OAuthFailure,
  type DiscoveredServer,
  type IssuedTokens,
  type OAuthClient,
  type OAuthEndpoints,
  type RegisteredClient,
  type TokenEndpointAuthMethod,
} from '../../domain/ports/oauthClient.ts';

const TIMEOUT_MS = 10_000;
const AUTH_METHODS: TokenEndpointAuthMethod[] = ['client_secret_post', 'client_secret_basic', 'none'];

export interface OAuth4WebApiOptions {
  /** Talk to authorization servers over plain http (AGENTPLANE_AUTH_ALLOW_HTTP); https only otherwise. */
  allowHttp: boolean;
  /** Non-public ranges (CIDR) the service may reach (AGENTPLANE_AUTH_ALLOWED_NETWORKS); all others are refused. */
  allowedNetworks: string[];
}

export class OAuth4WebApiClient implements OAuthClient {
  private readonly fetch: GuardedFetch;

  /** Throws naming the entry when an allowed network is not an address or CIDR range. */
  constructor(private readonly options: OAuth4WebApiOptions) {
    this.fetch = guardedFetch(addressCheck({ allowed_networks: options.allowedNetworks, setting: 'AGENTPLANE_AUTH_ALLOWED_NETWORKS' }));
  }

  private requestOptions() {
    return {
      signal: AbortSignal.timeout(TIMEOUT_MS),
      [oauth.allowInsecureRequests]: this.options.allowHttp,
      [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) =>
        this.fetch(url, { ...init, body: init.body as string | URLSearchParams | undefined }),
    };
  }

  async exchangeCode(endpoints: OAuthEndpoints, code: string, redirectUri: string, codeVerifier: string | null): Promise<IssuedTokens> {
    const { as, client, auth } = parts(endpoints);
    // the state was checked by the domain against the flow it names; the code is all oauth4webapi needs
    const params = oauth.validateAuthResponse(as, client, new URLSearchParams({ code }), oauth.skipStateCheck);
    return tokens('exchanging the code', async () => {
      const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, codeVerifier ?? oauth.nopkce, this.requestOptions());
      return oauth.processAuthorizationCodeResponse(as, client, response);
    });
  }

  async refresh(endpoints: OAuthEndpoints, refreshToken: string): Promise<IssuedTokens> {
    const { as, client, auth } = parts(endpoints);
    return tokens('refreshing the token', async () => {
      const response = await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, this.requestOptions());
      return oauth.processRefreshTokenResponse(as, client, response);
    });
  }

  async revoke(endpoints: OAuthEndpoints & { revocationUrl: string }, token: string, hint: 'access_token' | 'refresh_token'): Promise<void> {
    const { as, client, auth } = parts(endpoints);
    await step('revoking the token', async () => {
      const response = await oauth.revocationRequest(as, client, auth, token, { ...this.requestOptions(), additionalParameters: { token_type_hint: hint } });
      await oauth.processRevocationResponse(response);
    });
  }

  async discoverMcp(mcpServerUrl: string): Promise<DiscoveredServer> {
    const resource = await this.protectedResource(new URL(mcpServerUrl));
    const issuer = resource.authorization_servers?.[0];
    if (typeof issuer !== 'string') throw new OAuthFailure(`${mcpServerUrl} names no authorization server in its protected resource metadata`);
    const as = await this.authorizationServer(new URL(issuer));
    if (!as.authorization_endpoint || !as.token_endpoint) throw new OAuthFailure(`the authorization server ${issuer} has no authorization or token endpoint`);
    const methods = (as.token_endpoint_auth_methods_supported ?? ['client_secret_basic']).filter((m): m is TokenEndpointAuthMethod =>
      AUTH_METHODS.includes(m as TokenEndpointAuthMethod),
    );
    return {
      authUrl: as.authorization_endpoint,
      tokenUrl: as.token_endpoint,
      revocationUrl: as.revocation_endpoint ?? null,
      registrationUrl: as.registration_endpoint ?? null,
      pkceS256: as.code_challenge_methods_supported?.includes('S256') ?? false,
      authMethods: methods,
    };
  }

  async register(registrationUrl: string, redirectUri: string, clientName: string, authMethod: TokenEndpointAuthMethod): Promise<RegisteredClient> {
    const as: oauth.AuthorizationServer = { issuer: new URL(registrationUrl).origin, registration_endpoint: registrationUrl };
    return step('registering a client', async () => {
      const metadata = {
        redirect_uris: [redirectUri],
        client_name: clientName,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: authMethod,
      };
      const response = await oauth.dynamicClientRegistrationRequest(as, metadata, this.requestOptions());
      const client = await oauth.processDynamicClientRegistrationResponse(response);
      const secret = typeof client.client_secret === 'string' ? client.client_secret : null;
      const method = (client.token_endpoint_auth_method as TokenEndpointAuthMethod | undefined) ?? authMethod;
      return { clientId: client.client_id, clientSecret: secret, authMethod: secret === null ? 'none' : method };
    });
  }

  /** RFC 9728: where the MCP server's 401 points (`resource_metadata=`), else its well-known URL (path inserted, then at the root). */
  private async protectedResource(mcp: URL): Promise<{ authorization_servers?: unknown[] }> {
    const candidates: URL[] = [];
    const pointed = await this.resourceMetadataPointer(mcp);
    if (pointed) candidates.push(pointed);
    const path = mcp.pathname === '/' ? '' : mcp.pathname.replace(/\/$/, '');
    candidates.push(new URL(`/.well-known/oauth-protected-resource${path}`, mcp.origin));
    if (path) candidates.push(new URL('/.well-known/oauth-protected-resource', mcp.origin));
    for (const url of candidates) {
      this.checkProtocol(url);
      const response = await this.fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } }).catch(refusedOr(undefined));
      // a redirect is not followed: it counts as no metadata here
      if (!response?.ok) {
        await response?.body?.cancel();
        continue;
      }
      const body = (await response.json().catch(() => null)) as { authorization_servers?: unknown[] } | null;
      if (body && typeof body === 'object' && Array.isArray(body.authorization_servers)) return body;
    }
    throw new OAuthFailure(`${mcp.href} offers no OAuth protected resource metadata (RFC 9728)`);
  }

  /** The `resource_metadata` URL of the MCP server's `WWW-Authenticate: Bearer` challenge, if it sends one. */
  private async resourceMetadataPointer(mcp: URL): Promise<URL | undefined> {
    this.checkProtocol(mcp);
    const response = await this.fetch(mcp, {
      method: 'POST',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    }).catch(refusedOr(undefined));
    await response?.body?.cancel();
    const challenge = response?.status === 401 ? response.headers.get('www-authenticate') : null;
    const pointer = challenge?.match(/resource_metadata="([^"]+)"/)?.[1];
    if (!pointer) return undefined;
    try {
      return new URL(pointer, mcp);
    } catch {
      return undefined;
    }
  }

  /** RFC 8414 metadata of the issuer, else its OpenID Connect discovery document. */
  private async authorizationServer(issuer: URL): Promise<oauth.AuthorizationServer> {
    let last: unknown;
    for (const algorithm of ['oauth2', 'oidc'] as const) {
      try {
        const response = await oauth.discoveryRequest(issuer, { ...this.requestOptions(), algorithm });
        return await oauth.processDiscoveryResponse(issuer, response);
      } catch (error) {
        last = error;
      }
    }
    throw new OAuthFailure(`no authorization server metadata at ${issuer.href}: ${describe(last)}`);
  }

  private checkProtocol(url: URL): void {
    if (url.protocol === 'https:' || (url.protocol === 'http:' && this.options.allowHttp)) return;
    throw new OAuthFailure(`${url.href} is not https (plain http needs AGENTPLANE_AUTH_ALLOW_HTTP)`);
  }
}

/** A refused address is the answer (no connection was made); any other failure counts as `fallback`. */
function refusedOr<T>(fallback: T) {
  return (error: unknown): T => {
    if (error instanceof RefusedAddress) throw new OAuthFailure(error.message);
    return fallback;
  };
}

function parts(endpoints: OAuthEndpoints) {
  const as: oauth.AuthorizationServer = {
    issuer: new URL(endpoints.tokenUrl).origin,
    token_endpoint: endpoints.tokenUrl,
    ...(endpoints.revocationUrl ? { revocation_endpoint: endpoints.revocationUrl } : {}),
  };
  const client: oauth.Client = { client_id: endpoints.clientId };
  const secret = endpoints.clientSecret ?? '';
  const auth =
    endpoints.authMethod === 'none'
      ? oauth.None()
      : endpoints.authMethod === 'client_secret_basic'
        ? oauth.ClientSecretBasic(secret)
        : oauth.ClientSecretPost(secret);
  return { as, client, auth };
}

async function tokens(what: string, work: () => Promise<oauth.TokenEndpointResponse>): Promise<IssuedTokens> {
  const answer = await step(what, work);
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? null,
    expiresIn: typeof answer.expires_in === 'number' ? answer.expires_in : null,
    scope: typeof answer.scope === 'string' ? answer.scope : null,
  };
}

async function step<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof OAuthFailure) throw error;
    const invalidGrant = error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant';
    throw new OAuthFailure(`${what} failed: ${describe(error)}`, invalidGrant);
  }
}

function describe(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) return `${error.error}${error.error_description ? ` (${error.error_description})` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
