// The auth service's OAuth client with the development provider answered in process: its token
// endpoint is on this very server, so a code exchange or a refresh needs no request to our own
// port (which the client's network guard would refuse: loopback, plain http). Every other
// provider goes through `client` unchanged. The development provider's token URL is a bare
// path, which no configured provider can have (theirs are absolute https URLs).
import type { OAuthClient, OAuthEndpoints } from '../../domain/ports/oauthClient.ts';
import { DEV_CLIENT_ID, DEV_TOKEN_PATH, type DevAuthorizationServer } from './devAuthorizationServer.ts';

const isDev = (endpoints: OAuthEndpoints) => endpoints.tokenUrl === DEV_TOKEN_PATH && endpoints.clientId === DEV_CLIENT_ID;

export function withDevProvider(client: OAuthClient, dev: DevAuthorizationServer): OAuthClient {
  return {
    exchangeCode: async (endpoints, code, redirectUri, verifier) =>
      isDev(endpoints) ? dev.exchange(code, redirectUri, verifier) : client.exchangeCode(endpoints, code, redirectUri, verifier),
    refresh: async (endpoints, refreshToken) => (isDev(endpoints) ? dev.refresh(refreshToken) : client.refresh(endpoints, refreshToken)),
    revoke: async (endpoints, token, hint) => (isDev(endpoints) ? dev.revoke(token) : client.revoke(endpoints, token, hint)),
    discoverMcp: (url) => client.discoverMcp(url),
    register: (url, redirectUri, name, method) => client.register(url, redirectUri, name, method),
  };
}
