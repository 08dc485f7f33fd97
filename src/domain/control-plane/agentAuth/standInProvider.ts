// The development stand-in (AGENTPLANE_DEV_OAUTH): a server that offers one answers for every
// provider id a tenant has not configured, so a graph asking for `github` on a fresh start gets a
// consent URL on this server instead of "Provider ID github not found". A provider the tenant
// configures under that id is always used instead, and the tokens got through the stand-in are
// never handed out for it (a token is bound to the record it was got through: tokenVault.ts).
import type { ProviderRecord } from '../records.ts';

/** Where the stand-in's authorization server is: paths on this server, and its one public client. */
export interface StandInProvider {
  /** A path: the user's URL is made on the server's public URL (flows.ts). */
  authPath: string;
  /** A path no configured provider can have (theirs are absolute https URLs): the OAuth client answers it in process. */
  tokenPath: string;
  clientId: string;
}

/** The record a flow or a token of the stand-in names, as if the tenant had configured it (never stored). */
export function standInRecord(standIn: StandInProvider, tenantId: string, providerId: string): ProviderRecord {
  const since = new Date(0).toISOString();
  return {
    id: `dev-oauth/${providerId}`,
    organization_id: tenantId,
    tenant_id: tenantId,
    tenant_provider: `${tenantId}/${providerId}`,
    provider_id: providerId,
    name: `${providerId} (development stand-in)`,
    client_id: standIn.clientId,
    client_secret: null,
    auth_url: standIn.authPath,
    token_url: standIn.tokenPath,
    uses_pkce: true,
    code_challenge_method: 'S256',
    provider_type: null,
    mcp_server_url: null,
    token_endpoint_auth_method: 'none',
    is_dynamic_client: false,
    revocation_url: null,
    created_at: since,
    updated_at: since,
  };
}
