// What the auth service stores: the flows under way and the tokens they got. Secrets (tokens,
// PKCE verifiers) are only ever stored sealed (tokenCipher.ts); the `state` a flow's URL
// carries is stored as its hash, so reading the store does not let anyone complete a flow.
import type { Collection, Store } from '../../ports/store.ts';

export type FlowStatus = 'pending' | 'exchanging' | 'completed' | 'failed';

export interface AuthFlowRecord {
  /** The auth_id. */
  id: string;
  tenant_id: string;
  user_id: string;
  /** The provider's caller-chosen id, and its record's id (a provider re-created under the same name is another). */
  provider_id: string;
  provider_record_id: string;
  scopes: string[];
  /** SHA-256 (hex) of the secret part of the `state`. */
  state_hash: string;
  /** The PKCE code verifier, sealed; null without PKCE. */
  verifier: string | null;
  redirect_uri: string;
  status: FlowStatus;
  /** Who took the flow for its one exchange (single use; see flows.ts). */
  claim: string | null;
  token_id: string | null;
  error: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export interface AuthTokenRecord {
  id: string;
  tenant_id: string;
  user_id: string;
  provider_id: string;
  provider_record_id: string;
  /** `${tenant_id}/${user_id}/${provider_id}`, indexed: a user's tokens for a provider are one look-up. */
  owner_key: string;
  /** Sorted, without repeats. */
  scopes: string[];
  /** `{access_token, refresh_token}` as JSON, sealed with the record's id. */
  sealed: string;
  expires_at: string | null;
  provider_account_label: string | null;
  created_at: string;
  updated_at: string;
}

export interface SealedTokens {
  access_token: string;
  refresh_token: string | null;
}

export const AUTH_COLLECTIONS = { flows: 'cp-auth-flows', tokens: 'cp-auth-tokens' } as const;

export const ownerKey = (tenantId: string, userId: string, providerId: string) => `${tenantId}/${userId}/${providerId}`;

export class AgentAuthRecords {
  readonly flows: Collection<AuthFlowRecord>;
  readonly tokens: Collection<AuthTokenRecord>;
  constructor(store: Store) {
    this.flows = store.collection(AUTH_COLLECTIONS.flows, { indexes: ['tenant_id', 'provider_record_id'] });
    this.tokens = store.collection(AUTH_COLLECTIONS.tokens, { indexes: ['tenant_id', 'owner_key', 'provider_record_id'] });
  }
}
