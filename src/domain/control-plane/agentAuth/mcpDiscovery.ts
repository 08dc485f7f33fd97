// A provider made from an MCP server's OAuth metadata (the MCP authorization spec): the
// protected resource metadata (RFC 9728) names the authorization server, whose metadata
// (RFC 8414 / OpenID discovery) gives the endpoints, where a client is registered for this
// server's callback (RFC 7591). The adapter does the HTTP; this decides what is asked for.
import type { AuthProvider, McpDiscoverRequest } from '../../../../generated/control-plane/types.gen.ts';
import { OAuthFailure, type OAuthClient, type TokenEndpointAuthMethod } from '../../ports/oauthClient.ts';
import { fail, type Outcome } from '../../outcome.ts';
import { addProvider, type ProviderRules } from '../authProviders.ts';
import type { ControlPlaneRepository } from '../records.ts';
import { callbackUrl } from './flowRules.ts';

/** The registration asked for, in order of preference: a confidential client, else a public one with PKCE. */
const PREFERRED: TokenEndpointAuthMethod[] = ['client_secret_post', 'client_secret_basic', 'none'];

export async function discoverMcpProvider(
  repo: ControlPlaneRepository,
  oauth: OAuthClient,
  rules: ProviderRules,
  tenantId: string,
  baseUrl: string,
  body: McpDiscoverRequest,
): Promise<Outcome<AuthProvider, 'conflict' | 'invalid'>> {
  try {
    const server = await oauth.discoverMcp(body.mcp_server_url);
    if (!server.registrationUrl)
      return fail('invalid', `MCP discovery failed: the authorization server of ${body.mcp_server_url} offers no dynamic client registration.`);
    const method = PREFERRED.find((m) => server.authMethods.includes(m)) ?? 'client_secret_basic';
    const client = await oauth.register(server.registrationUrl, callbackUrl(baseUrl, body.provider_id), `agentplane: ${body.name}`, method);
    const added = await addProvider(repo, tenantId, rules, {
      provider_id: body.provider_id,
      name: body.name,
      client_id: client.clientId,
      client_secret: client.clientSecret,
      auth_url: server.authUrl,
      token_url: server.tokenUrl,
      // OAuth 2.1 requires PKCE; a public client has nothing else binding the code to it
      uses_pkce: server.pkceS256 || client.authMethod === 'none',
      code_challenge_method: 'S256',
      provider_type: null,
      mcp_server_url: body.mcp_server_url,
      token_endpoint_auth_method: client.authMethod,
      is_dynamic_client: true,
      revocation_url: server.revocationUrl,
    });
    // what the authorization server's metadata named is held to the rules of a provider made by hand
    if (!added.ok && added.failure.kind === 'unprocessable') return fail('invalid', `MCP discovery failed: ${added.failure.detail}`);
    return added as Outcome<AuthProvider, 'conflict'>;
  } catch (error) {
    if (error instanceof OAuthFailure) return fail('invalid', `MCP discovery failed: ${error.message}.`);
    throw error;
  }
}
