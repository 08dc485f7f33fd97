// The auth tokens in a collection of the store, indexed by tenant, owner and provider record;
// lists keep the order the tokens were first stored in.
import type { Collection, Store } from '../../domain/ports/store.ts';
import { ownerKey, type AuthTokenRecord, type AuthTokensRepository } from '../../domain/ports/authTokensRepository.ts';

export class CollectionAuthTokens implements AuthTokensRepository {
  private readonly tokens: Collection<AuthTokenRecord>;

  constructor(store: Store) {
    this.tokens = store.collection('cp-auth-tokens', { indexes: ['tenant_id', 'owner_key', 'provider_record_id'] });
  }

  get(tokenId: string): Promise<AuthTokenRecord | undefined> {
    return this.tokens.get(tokenId);
  }

  put(token: AuthTokenRecord): Promise<void> {
    return this.tokens.put(token.id, token);
  }

  change(tokenId: string, next: (token: AuthTokenRecord) => AuthTokenRecord | undefined): Promise<AuthTokenRecord | undefined> {
    return this.tokens.update(tokenId, next);
  }

  async delete(tokenId: string): Promise<void> {
    await this.tokens.delete(tokenId);
  }

  ofOwner(tenantId: string, userId: string, providerId: string): Promise<AuthTokenRecord[]> {
    return this.tokens.list({ where: { owner_key: ownerKey(tenantId, userId, providerId) } });
  }

  ofTenant(tenantId: string): Promise<AuthTokenRecord[]> {
    return this.tokens.list({ where: { tenant_id: tenantId } });
  }

  ofProvider(providerRecordId: string): Promise<AuthTokenRecord[]> {
    return this.tokens.list({ where: { provider_record_id: providerRecordId } });
  }

  async any(): Promise<boolean> {
    return (await this.tokens.count()) > 0;
  }
}
