// The tokens the flows got, per (tenant, user, provider, scopes): handed out refreshed,
// listed without secrets, labelled, deleted (revoked at the provider first, RFC 7009, where it
// has a revocation endpoint). Another user's or tenant's token is answered as missing.
import { randomUUID } from 'node:crypto';
import type { AuthTokenSummary } from '../../../../generated/control-plane/types.gen.ts';
import type { Locks } from '../../keyedLock.ts';
import type { Logger } from '../../ports/logger.ts';
import { OAuthFailure, type IssuedTokens, type OAuthClient, type OAuthEndpoints } from '../../ports/oauthClient.ts';
import { timestamp } from '../../clock.ts';
import { fail, ok, type Outcome } from '../../outcome.ts';
import type { ProviderRecord } from '../records.ts';
import { covers, expiryOf, needsRefresh, normalScopes } from './flowRules.ts';
import { ownerKey, type AuthTokenRecord, type AuthTokensRepository } from '../../ports/authTokensRepository.ts';
import { openSecret } from './providerSecrets.ts';
import type { TokenCipher } from './tokenCipher.ts';

export interface VaultDeps {
  tokens: AuthTokensRepository;
  cipher: TokenCipher;
  oauth: OAuthClient;
  locks: Locks;
  /** The provider record a token was got through (its endpoints and client). */
  provider: (recordId: string) => Promise<ProviderRecord | undefined>;
  log: Logger;
}

/** What a token record seals (tokenCipher.ts): its secrets, never stored in clear. */
export interface SealedTokens {
  access_token: string;
  refresh_token: string | null;
}

const tokenNotFound = (id: string) => fail('not_found', `Token ${id} not found.`);

/** Where and as whom the provider's token endpoint is called (its secret opened with `cipher`). */
export function endpointsOf(provider: ProviderRecord, cipher: TokenCipher): OAuthEndpoints {
  return {
    tokenUrl: provider.token_url,
    revocationUrl: provider.revocation_url,
    clientId: provider.client_id,
    clientSecret: openSecret(cipher, provider),
    authMethod: provider.token_endpoint_auth_method,
  };
}

export function toSummary(record: AuthTokenRecord): AuthTokenSummary {
  return {
    id: record.id,
    provider_id: record.provider_id,
    user_id: record.user_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
    provider_account_label: record.provider_account_label,
    scopes: record.scopes,
    expires_at: record.expires_at,
  };
}

/** Which stored token `usable` hands out: the one named (else the newest), and the access token a resource server refused. */
export interface TokenChoice {
  tokenId?: string | null;
  refused?: string | null;
}

export class TokenVault {
  constructor(private readonly deps: VaultDeps) {}

  /**
   * An access token of the user for the provider covering `scopes`: the one named, else the
   * newest; refreshed first when it expires within the margin, or when it is still the
   * `refused` one (a resource server answered 401 to it, whatever its expiry says). Undefined
   * when none serves (none stored, or one that needed a refresh that did not work): then a
   * flow is needed.
   */
  async usable(tenantId: string, userId: string, provider: ProviderRecord, scopes: string[], choice: TokenChoice = {}): Promise<string | undefined> {
    const stored = await this.ofOwner(tenantId, userId, provider);
    const candidates = stored.filter((t) => covers(t.scopes, scopes) && (!choice.tokenId || t.id === choice.tokenId)).reverse();
    for (const candidate of candidates) {
      const token = await this.fresh(candidate, provider, choice.refused ?? null);
      if (token) return token;
    }
    return undefined;
  }

  /** Keeps what a flow got: replaces the user's token with the same scopes, else adds one. */
  async keep(
    flow: { tenant_id: string; user_id: string; provider_id: string; provider_record_id: string; scopes: string[] },
    issued: IssuedTokens,
  ): Promise<AuthTokenRecord> {
    // what the server granted when it says (it may grant fewer than asked), else what was asked
    const scopes = normalScopes(issued.scope ? issued.scope.split(' ') : flow.scopes);
    const key = ownerKey(flow.tenant_id, flow.user_id, flow.provider_id);
    return this.deps.locks.run(`auth-owner:${key}`, async () => {
      const same = (await this.deps.tokens.ofOwner(flow.tenant_id, flow.user_id, flow.provider_id)).find(
        (t) => t.provider_record_id === flow.provider_record_id && t.scopes.join(' ') === scopes.join(' '),
      );
      const now = timestamp();
      const id = same?.id ?? randomUUID();
      const record: AuthTokenRecord = {
        id,
        tenant_id: flow.tenant_id,
        user_id: flow.user_id,
        provider_id: flow.provider_id,
        provider_record_id: flow.provider_record_id,
        owner_key: key,
        scopes,
        sealed: this.seal({ access_token: issued.accessToken, refresh_token: issued.refreshToken }, id),
        expires_at: expiryOf(issued.expiresIn),
        provider_account_label: same?.provider_account_label ?? null,
        created_at: same?.created_at ?? now,
        updated_at: now,
      };
      await this.deps.tokens.put(record);
      return record;
    });
  }

  /** The access token of a stored token, as it is (wait's answer: just issued). */
  async accessToken(tokenId: string): Promise<string | undefined> {
    const record = await this.deps.tokens.get(tokenId);
    return record ? (await this.open(record)).access_token : undefined;
  }

  /** The tenant's tokens: of one user (every user's without), of one provider (every provider's without). */
  async list(tenantId: string, userId?: string, providerId?: string): Promise<AuthTokenSummary[]> {
    const records =
      userId && providerId
        ? await this.deps.tokens.ofOwner(tenantId, userId, providerId)
        : (await this.deps.tokens.ofTenant(tenantId)).filter((t) => (!userId || t.user_id === userId) && (!providerId || t.provider_id === providerId));
    return records.reverse().map(toSummary);
  }

  async label(tenantId: string, userId: string, tokenId: string, label: string): Promise<Outcome<AuthTokenSummary, 'not_found'>> {
    const mine = (t: AuthTokenRecord) => t.tenant_id === tenantId && t.user_id === userId;
    const current = await this.deps.tokens.get(tokenId);
    if (!current || !mine(current)) return tokenNotFound(tokenId);
    const next = await this.deps.tokens.change(tokenId, (t) => (mine(t) ? { ...t, provider_account_label: label, updated_at: timestamp() } : undefined));
    return next && mine(next) ? ok(toSummary(next)) : tokenNotFound(tokenId);
  }

  async deleteOne(tenantId: string, userId: string, tokenId: string): Promise<Outcome<void, 'not_found'>> {
    const record = await this.deps.tokens.get(tokenId);
    if (!record || record.tenant_id !== tenantId || record.user_id !== userId) return tokenNotFound(tokenId);
    await this.revokeAndDelete(record);
    return ok(undefined);
  }

  /** Deletes the user's tokens for a provider; how many. */
  async deleteAll(tenantId: string, userId: string, providerId: string): Promise<number> {
    const records = await this.deps.tokens.ofOwner(tenantId, userId, providerId);
    for (const record of records) await this.revokeAndDelete(record);
    return records.length;
  }

  /** Every token got through a provider record, gone with it (not revoked: its client is gone too). */
  async forgetProvider(providerRecordId: string): Promise<void> {
    const records = await this.deps.tokens.ofProvider(providerRecordId);
    for (const record of records) await this.deps.tokens.delete(record.id);
  }

  private async ofOwner(tenantId: string, userId: string, provider: ProviderRecord): Promise<AuthTokenRecord[]> {
    const records = await this.deps.tokens.ofOwner(tenantId, userId, provider.provider_id);
    return records.filter((t) => t.provider_record_id === provider.id);
  }

  /**
   * The token's access token, refreshed under its lock when it is about to expire or is the
   * one a resource server `refused`; undefined when it cannot be.
   */
  private async fresh(record: AuthTokenRecord, provider: ProviderRecord, refused: string | null): Promise<string | undefined> {
    const stale = (current: AuthTokenRecord, accessToken: string) => needsRefresh(current.expires_at) || accessToken === refused;
    const opened = await this.open(record);
    if (!stale(record, opened.access_token)) return opened.access_token;
    return this.deps.locks.run(`auth-token:${record.id}`, async () => {
      // another call may have refreshed it while this one waited (then it no longer holds the refused token)
      const current = await this.deps.tokens.get(record.id);
      if (!current) return undefined;
      const secrets = await this.open(current);
      if (!stale(current, secrets.access_token)) return secrets.access_token;
      if (!secrets.refresh_token) return undefined;
      try {
        const issued = await this.deps.oauth.refresh(endpointsOf(provider, this.deps.cipher), secrets.refresh_token);
        const next: AuthTokenRecord = {
          ...current,
          // a server may rotate the refresh token (OAuth 2.1 §4.3.1) or keep the old one valid
          sealed: this.seal({ access_token: issued.accessToken, refresh_token: issued.refreshToken ?? secrets.refresh_token }, current.id),
          expires_at: expiryOf(issued.expiresIn),
          updated_at: timestamp(),
        };
        await this.deps.tokens.put(next);
        return issued.accessToken;
      } catch (error) {
        if (!(error instanceof OAuthFailure)) throw error;
        this.deps.log.warn('a stored token could not be refreshed; the user is asked again', {
          token_id: current.id,
          provider_id: current.provider_id,
          error: error.message,
        });
        // a refresh token the server no longer honours is worth nothing
        if (error.invalidGrant) await this.deps.tokens.delete(current.id);
        return undefined;
      }
    });
  }

  private async revokeAndDelete(record: AuthTokenRecord): Promise<void> {
    const provider = await this.deps.provider(record.provider_record_id);
    if (provider?.revocation_url) {
      const secrets = await this.open(record).catch(() => undefined);
      const endpoints = { ...endpointsOf(provider, this.deps.cipher), revocationUrl: provider.revocation_url };
      // the refresh token last: revoking it may end the grant, after which the access token is unknown to the server
      const revocations: [string | null | undefined, 'access_token' | 'refresh_token'][] = [
        [secrets?.access_token, 'access_token'],
        [secrets?.refresh_token, 'refresh_token'],
      ];
      for (const [token, hint] of revocations) {
        if (!token) continue;
        await this.deps.oauth.revoke(endpoints, token, hint).catch((error: Error) =>
          // the user asked for the token to be gone: it is deleted here whatever the provider says
          this.deps.log.warn('the provider did not revoke a deleted token', { token_id: record.id, provider_id: record.provider_id, error: error.message }),
        );
      }
    }
    await this.deps.tokens.delete(record.id);
  }

  private seal(secrets: SealedTokens, id: string): string {
    return this.deps.cipher.seal(JSON.stringify(secrets), id);
  }

  /** The record's secrets; one sealed under an earlier key is sealed again under the current one. */
  private async open(record: AuthTokenRecord): Promise<SealedTokens> {
    const secrets = JSON.parse(this.deps.cipher.open(record.sealed, record.id)) as SealedTokens;
    if (this.deps.cipher.isStale(record.sealed)) {
      const sealed = this.seal(secrets, record.id);
      await this.deps.tokens.change(record.id, (t) => (t.sealed === record.sealed ? { ...t, sealed } : undefined));
    }
    return secrets;
  }
}
