// The auth service's tokens, as the token vault keeps them: one per tenant, user, provider
// record and scopes, read by id and as an owner's, a tenant's or a provider record's, stored
// whole or changed atomically. Secrets are only ever stored sealed (tokenCipher.ts). Kept in
// the store's collection (adapters/embedded/collectionAuthTokens.ts).

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

/** A token's owner as one key (indexed): `${tenant_id}/${user_id}/${provider_id}`. */
export const ownerKey = (tenantId: string, userId: string, providerId: string) => `${tenantId}/${userId}/${providerId}`;

export interface AuthTokensRepository {
  get(tokenId: string): Promise<AuthTokenRecord | undefined>;
  /** Stores the token, replacing the one of its id. */
  put(token: AuthTokenRecord): Promise<void>;
  /**
   * Atomic read-modify-write of one token: `next` sees it as stored and returns its next
   * version, or undefined to leave it. Resolves to the token as stored after the call.
   */
  change(tokenId: string, next: (token: AuthTokenRecord) => AuthTokenRecord | undefined): Promise<AuthTokenRecord | undefined>;
  delete(tokenId: string): Promise<void>;
  /** The tokens of one user for one provider (by its caller-chosen id), oldest first. */
  ofOwner(tenantId: string, userId: string, providerId: string): Promise<AuthTokenRecord[]>;
  /** The tenant's tokens, oldest first. */
  ofTenant(tenantId: string): Promise<AuthTokenRecord[]>;
  /** The tokens got through a provider record. */
  ofProvider(providerRecordId: string): Promise<AuthTokenRecord[]>;
  /** Whether any token is stored (a start without the key that sealed them is refused). */
  any(): Promise<boolean>;
}
