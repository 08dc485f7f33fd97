// A provider's client_secret at rest: sealed as tokens are (tokenCipher.ts, the provider
// record's id as additional data, so a sealed secret copied onto another provider does not
// open). A secret stored in clear by an earlier version, or while no key was set, is sealed
// at the next start with a key (sealStoredSecrets); one sealed under a previous key is sealed
// again under the current one.
import type { ProviderRecord, ProvidersRepository } from '../../ports/controlPlaneRepository.ts';
import type { TokenCipher } from './tokenCipher.ts';

/** The sealed format (`v1.<key id>.<iv>.<tag>.<ciphertext>`), told apart from a secret kept in clear. */
const SEALED = /^v1\.[0-9a-f]{16}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/;

export const isSealed = (secret: string | null): boolean => secret !== null && SEALED.test(secret);

/** The record with its secret sealed (unchanged without a cipher: the secret waits for a key, in clear). */
export function sealSecret<R extends Pick<ProviderRecord, 'id' | 'client_secret'>>(cipher: TokenCipher | null, record: R): R {
  if (!cipher || record.client_secret === null || isSealed(record.client_secret)) return record;
  return { ...record, client_secret: cipher.seal(record.client_secret, record.id) };
}

/** The provider's secret in clear, to send to its token endpoint. Throws when it is sealed and no key opens it. */
export function openSecret(cipher: TokenCipher | null, record: Pick<ProviderRecord, 'id' | 'client_secret'>): string | null {
  if (!isSealed(record.client_secret)) return record.client_secret;
  if (!cipher) throw new Error('a provider secret is sealed and no key is set (AGENTPLANE_TOKEN_KEY)');
  return cipher.open(record.client_secret!, record.id);
}

/**
 * Seals every secret still in clear, and seals again one under a previous key; the number
 * changed. Without a key, a sealed secret stops the start (it could not be sent), as a stored token does.
 */
export async function sealStoredSecrets(providers: Pick<ProvidersRepository, 'all' | 'put'>, cipher: TokenCipher | null): Promise<number> {
  const all = await providers.all();
  if (!cipher) {
    if (all.some((p) => isSealed(p.client_secret)))
      throw new Error(
        'the auth service keeps provider secrets encrypted: set AGENTPLANE_TOKEN_KEY to the key they were stored with (docs/control-plane.md, Agent auth)',
      );
    return 0;
  }
  let changed = 0;
  for (const provider of all) {
    if (provider.client_secret === null) continue;
    const stale = isSealed(provider.client_secret) && cipher.isStale(provider.client_secret);
    if (isSealed(provider.client_secret) && !stale) continue;
    const plain = openSecret(cipher, provider)!;
    await providers.put({ ...provider, client_secret: cipher.seal(plain, provider.id) });
    changed += 1;
  }
  return changed;
}
