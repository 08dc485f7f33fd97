// The auth service's parts, made once per server: the records, the cipher from the operator's
// key, the token vault and the flows. Without a key the service answers that it needs one —
// and once tokens are stored, a start without the key is refused, since they could not be
// read (nor would new ones be kept beside them).
import type { Coordination } from '../../ports/coordination.ts';
import type { Logger } from '../../ports/logger.ts';
import type { OAuthClient } from '../../ports/oauthClient.ts';
import type { AuthFlowsRepository } from '../../ports/authFlowsRepository.ts';
import type { AuthTokensRepository } from '../../ports/authTokensRepository.ts';
import { providerRecordOf, type ProviderRules } from '../authProviders.ts';
import { sealStoredSecrets } from './providerSecrets.ts';
import type { ControlPlaneRepository } from '../records.ts';
import { AuthFlows } from './flows.ts';
import { TokenCipher } from './tokenCipher.ts';
import { TokenVault } from './tokenVault.ts';
import { standInRecord, type StandInProvider } from './standInProvider.ts';
import type { TenantQuotas } from '../../tenantQuotas.ts';

export interface AgentAuthOptions {
  repo: ControlPlaneRepository;
  /** Where the flows under way and the tokens they got are kept. */
  flows: AuthFlowsRepository;
  tokens: AuthTokensRepository;
  coordination: Pick<Coordination, 'notify' | 'listen'>;
  oauth: OAuthClient;
  /** AGENTPLANE_TOKEN_KEY and AGENTPLANE_TOKEN_KEY_PREVIOUS. */
  tokenKey: string | null;
  /** The key was made on this start: a token stored before was sealed under another. */
  tokenKeyIsNew: boolean;
  previousTokenKeys: string[];
  /** AGENTPLANE_AUTH_ALLOW_HTTP: providers' URLs may be plain http. */
  allowHttp: boolean;
  /** How many providers one tenant may hold (AGENTPLANE_MAX_AUTH_PROVIDERS_PER_TENANT); none: unbounded. */
  quotas?: Pick<TenantQuotas, 'authProviders'>;
  /** The store has no other server (the embedded store's lock): a flow `exchanging` at the start was cut by the last stop. */
  soleOwner: boolean;
  /** The development provider answering for provider ids a tenant has not configured (AGENTPLANE_DEV_OAUTH); null: none. */
  standIn?: StandInProvider | null;
  log: Logger;
}

export interface AgentAuth {
  flows: AuthFlows;
  /** Null without a key. */
  vault: TokenVault | null;
  oauth: OAuthClient;
  /** What a provider written is held to (its URLs, its secret's seal). */
  providerRules: ProviderRules;
  /** Removes what a provider's record got (tokens, flows); called before the provider is deleted. */
  forgetProvider(providerRecordId: string): Promise<void>;
}

export async function createAgentAuth(options: AgentAuthOptions): Promise<AgentAuth> {
  const { repo, log } = options;
  const { tokens } = options;
  const cipher = TokenCipher.fromSettings(options.tokenKey, options.previousTokenKeys);
  if ((!cipher || options.tokenKeyIsNew) && (await tokens.any()))
    throw new Error(
      'the auth service has stored tokens, kept encrypted: set AGENTPLANE_TOKEN_KEY to the key they were stored with (docs/control-plane.md, Agent auth)',
    );
  // secrets kept in clear (an earlier version, or no key then) are sealed now, before anything reads them
  const sealed = await sealStoredSecrets(repo.providers, cipher);
  if (sealed > 0) log.info('provider secrets sealed at rest', { count: sealed });
  const vault = cipher ? new TokenVault({ tokens, cipher, oauth: options.oauth, locks: repo.locks, provider: (id) => repo.providers.get(id), log }) : null;
  const flows = new AuthFlows({
    flows: options.flows,
    cipher,
    vault,
    oauth: options.oauth,
    coordination: options.coordination,
    providerOf: async (tenantId, providerId) => {
      const configured = await providerRecordOf(repo, tenantId, providerId);
      const { standIn } = options;
      return configured ?? (standIn ? standInRecord(standIn, tenantId, providerId) : undefined);
    },
    log,
  });
  // a code exchange cut by a crash ends failed, not `exchanging` until the flow expires
  await flows.failCutExchanges(options.soleOwner);
  return {
    flows,
    vault,
    oauth: options.oauth,
    providerRules: { allowHttp: options.allowHttp, cipher, ...(options.quotas ? { quotas: options.quotas } : {}) },
    async forgetProvider(providerRecordId) {
      await flows.forgetProvider(providerRecordId);
      if (vault) await vault.forgetProvider(providerRecordId);
      else for (const token of await tokens.ofProvider(providerRecordId)) await tokens.delete(token.id);
    },
  };
}
