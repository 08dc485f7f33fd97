// OAuth providers of the caller's organization (agentplane: the tenant). The client secret
// is kept in the record, sealed (agentAuth/providerSecrets.ts), and never put into a view; the
// URLs are https (providerUrls.ts).
import { randomUUID } from 'node:crypto';
import type { AuthProvider, AuthProviderCreate, AuthProviderPatch } from '../../../generated/control-plane/types.gen.ts';
import { timestamp } from '../clock.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { conflict, providerNotFound } from './failures.ts';
import type { ControlPlaneRepository, ProviderRecord } from './records.ts';
import { toAuthProvider } from './views.ts';
import { providerUrlProblems } from './providerUrls.ts';
import { sealSecret } from './agentAuth/providerSecrets.ts';
import type { TokenCipher } from './agentAuth/tokenCipher.ts';
import { createWithin, UNBOUNDED_QUOTAS, type TenantQuotas } from '../tenantQuotas.ts';

/** What a provider written is held to: its URLs' scheme, and the key its secret is sealed with. */
export interface ProviderRules {
  /** AGENTPLANE_AUTH_ALLOW_HTTP: plain http URLs are allowed too. */
  allowHttp: boolean;
  /** Null without AGENTPLANE_TOKEN_KEY: the secret is kept in clear until a start with a key seals it. */
  cipher: TokenCipher | null;
  /** How many providers one tenant may hold (AGENTPLANE_MAX_AUTH_PROVIDERS_PER_TENANT); none: unbounded. */
  quotas?: Pick<TenantQuotas, 'authProviders'>;
}

function urlsRefused(fields: Parameters<typeof providerUrlProblems>[0], rules: ProviderRules) {
  const problems = providerUrlProblems(fields, rules.allowHttp);
  return problems.length > 0 ? fail('unprocessable', problems.map((p) => p.msg).join(' '), { problems }) : undefined;
}

const key = (tenantId: string, providerId: string) => `${tenantId}/${providerId}`;

async function find(repo: ControlPlaneRepository, tenantId: string, providerId: string): Promise<Outcome<ProviderRecord, 'not_found'>> {
  const record = await repo.providers.named(key(tenantId, providerId));
  return record ? ok(record) : providerNotFound(providerId);
}

export async function listAuthProviders(repo: ControlPlaneRepository, tenantId: string): Promise<AuthProvider[]> {
  const records = await repo.providers.ofTenant(tenantId);
  return records.sort((a, b) => (a.provider_id < b.provider_id ? -1 : a.provider_id > b.provider_id ? 1 : 0)).map(toAuthProvider);
}

export async function getAuthProvider(repo: ControlPlaneRepository, tenantId: string, providerId: string): Promise<Outcome<AuthProvider, 'not_found'>> {
  const found = await find(repo, tenantId, providerId);
  return found.ok ? ok(toAuthProvider(found.value)) : found;
}

export async function createAuthProvider(
  repo: ControlPlaneRepository,
  tenantId: string,
  body: AuthProviderCreate,
  rules: ProviderRules,
): Promise<Outcome<AuthProvider, 'conflict' | 'unprocessable' | 'quota_exceeded'>> {
  return addProvider(repo, tenantId, rules, {
    provider_id: body.provider_id,
    name: body.name,
    client_id: body.client_id,
    client_secret: body.client_secret ?? null,
    auth_url: body.auth_url,
    token_url: body.token_url,
    uses_pkce: body.uses_pkce ?? false,
    code_challenge_method: body.code_challenge_method === undefined ? 'S256' : body.code_challenge_method,
    provider_type: body.provider_type ?? null,
    mcp_server_url: null,
    token_endpoint_auth_method: body.token_endpoint_auth_method ?? 'client_secret_post',
    is_dynamic_client: false,
    revocation_url: body.revocation_url ?? null,
  });
}

/** What a provider is made of, whoever made it (createAuthProvider, MCP discovery). */
export type ProviderFields = Omit<ProviderRecord, 'id' | 'organization_id' | 'tenant_id' | 'tenant_provider' | 'created_at' | 'updated_at'>;

/** Stores a new provider of the tenant; a taken `provider_id` is a conflict, a URL that is not https unprocessable. */
export async function addProvider(
  repo: ControlPlaneRepository,
  tenantId: string,
  rules: ProviderRules,
  fields: ProviderFields,
): Promise<Outcome<AuthProvider, 'conflict' | 'unprocessable' | 'quota_exceeded'>> {
  const refused = urlsRefused(fields, rules);
  if (refused) return refused;
  const tenantProvider = key(tenantId, fields.provider_id);
  const quotas = rules.quotas ?? UNBOUNDED_QUOTAS;
  const held = async () => (await repo.providers.ofTenant(tenantId)).length;
  // the count and the write hold the tenant's lock of the quota: providers sent at once cannot pass it together
  return createWithin('authProviders', tenantId, quotas, repo.locks, held, () =>
    repo.locks.run(`provider:${tenantProvider}`, async () => {
      if (await repo.providers.named(tenantProvider)) {
        return conflict(`Provider ID ${fields.provider_id} already exists.`);
      }
      const now = timestamp();
      const record: ProviderRecord = sealSecret(rules.cipher, {
        id: randomUUID(),
        organization_id: tenantId,
        tenant_id: tenantId,
        tenant_provider: tenantProvider,
        ...fields,
        created_at: now,
        updated_at: now,
      });
      await repo.providers.put(record);
      return ok(toAuthProvider(record));
    }),
  );
}

/** A provider of the tenant by its caller-chosen id. */
export async function providerRecordOf(repo: ControlPlaneRepository, tenantId: string, providerId: string): Promise<ProviderRecord | undefined> {
  const found = await find(repo, tenantId, providerId);
  return found.ok ? found.value : undefined;
}

export async function patchAuthProvider(
  repo: ControlPlaneRepository,
  tenantId: string,
  providerId: string,
  body: AuthProviderPatch,
  rules: ProviderRules,
): Promise<Outcome<AuthProvider, 'not_found' | 'unprocessable'>> {
  const refused = urlsRefused(body, rules);
  if (refused) return refused;
  return repo.locks.run(`provider:${key(tenantId, providerId)}`, async () => {
    const found = await find(repo, tenantId, providerId);
    if (!found.ok) return found;
    const next: ProviderRecord = sealSecret(rules.cipher, { ...found.value, ...definedFields(body), updated_at: timestamp() });
    await repo.providers.put(next);
    return ok(toAuthProvider(next));
  });
}

/**
 * Deletes a provider; `forget` removes what was got through it (the auth service's tokens
 * and flows), before the provider, so none outlives it.
 */
export async function deleteAuthProvider(
  repo: ControlPlaneRepository,
  tenantId: string,
  providerId: string,
  forget: (providerRecordId: string) => Promise<void> = async () => {},
): Promise<Outcome<void, 'not_found'>> {
  return repo.locks.run(`provider:${key(tenantId, providerId)}`, async () => {
    const found = await find(repo, tenantId, providerId);
    if (!found.ok) return found;
    await forget(found.value.id);
    await repo.providers.delete(found.value.id);
    return ok(undefined);
  });
}

function definedFields(body: AuthProviderPatch): Partial<ProviderRecord> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as Partial<ProviderRecord>;
}
