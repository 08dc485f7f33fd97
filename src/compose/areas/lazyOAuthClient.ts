// The auth service's OAuth client over the network, its modules (oauth4webapi, ~100 KB) loaded at
// its first call: no request before a person connects an OAuth provider or a graph's flow reads
// it, and imported with the control plane it cost every start its load before the first answer
// (issue 86). Its allowed networks are checked now, as the client's own constructor checks them,
// so a wrong AGENTPLANE_AUTH_ALLOWED_NETWORKS still refuses the start; each call then goes to
// the client the loader made, exactly as it would have.
import type { OAuthClient } from '../../domain/ports/oauthClient.ts';
import type { OAuth4WebApiOptions } from '../../adapters/oauth/oauth4webapiClient.ts';
import { addressCheck } from '../../adapters/webhooks/webhookAddresses.ts';

export function lazyOAuthClient(options: OAuth4WebApiOptions): OAuthClient {
  addressCheck({ allowed_networks: options.allowedNetworks, setting: 'AGENTPLANE_AUTH_ALLOWED_NETWORKS' });
  let made: Promise<OAuthClient> | undefined;
  const client = () => (made ??= import('../../adapters/oauth/oauth4webapiClient.ts').then(({ OAuth4WebApiClient }) => new OAuth4WebApiClient(options)));
  return {
    exchangeCode: async (...args) => (await client()).exchangeCode(...args),
    refresh: async (...args) => (await client()).refresh(...args),
    revoke: async (...args) => (await client()).revoke(...args),
    discoverMcp: async (...args) => (await client()).discoverMcp(...args),
    register: async (...args) => (await client()).register(...args),
  };
}
