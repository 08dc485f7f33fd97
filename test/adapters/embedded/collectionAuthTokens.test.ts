// The auth service's tokens and flows in their collections, on both stores: what
// AuthTokensRepository and AuthFlowsRepository promise the token vault and the flows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CollectionAuthTokens } from '../../../src/adapters/embedded/collectionAuthTokens.ts';
import { CollectionAuthFlows } from '../../../src/adapters/embedded/collectionAuthFlows.ts';
import type { AuthTokenRecord } from '../../../src/domain/ports/authTokensRepository.ts';
import type { AuthFlowRecord } from '../../../src/domain/ports/authFlowsRepository.ts';
import { BACKENDS, openStore } from '../../support/bothStores.ts';

const AT = '2026-01-01T00:00:00.000Z';

function token(id: string, tenant: string, user: string, provider: string, providerRecord = `${provider}-record`): AuthTokenRecord {
  return {
    id,
    tenant_id: tenant,
    user_id: user,
    provider_id: provider,
    provider_record_id: providerRecord,
    owner_key: `${tenant}/${user}/${provider}`,
    scopes: ['read'],
    sealed: 'sealed',
    expires_at: null,
    provider_account_label: null,
    created_at: AT,
    updated_at: AT,
  };
}

function flow(id: string, tenant: string, status: AuthFlowRecord['status'], providerRecord = 'github-record'): AuthFlowRecord {
  return {
    id,
    tenant_id: tenant,
    user_id: 'u1',
    provider_id: 'github',
    provider_record_id: providerRecord,
    scopes: ['read'],
    state_hash: 'hash',
    verifier: null,
    redirect_uri: 'https://cp.example/callback',
    status,
    claim: null,
    token_id: null,
    error: null,
    expires_at: AT,
    created_at: AT,
    updated_at: AT,
  };
}

const ids = (records: { id: string }[]) => records.map((r) => r.id);

for (const backend of BACKENDS) {
  describe(`auth tokens and flows on the ${backend} store`, () => {
    it('reads tokens by owner, tenant and provider record in the order first stored; a change is atomic and may decline', async () => {
      const tokens = new CollectionAuthTokens(await openStore(backend));
      assert.equal(await tokens.any(), false);
      await tokens.put(token('t1', 'a', 'u1', 'github'));
      await tokens.put(token('t2', 'a', 'u2', 'github'));
      await tokens.put(token('t3', 'a', 'u1', 'gitlab', 'gitlab-record'));
      await tokens.put(token('t4', 'b', 'u1', 'github'));
      assert.equal(await tokens.any(), true);
      assert.deepEqual(ids(await tokens.ofOwner('a', 'u1', 'github')), ['t1']);
      assert.deepEqual(ids(await tokens.ofTenant('a')), ['t1', 't2', 't3']);
      assert.deepEqual(ids(await tokens.ofProvider('github-record')), ['t1', 't2', 't4']);
      const labelled = await tokens.change('t1', (t) => ({ ...t, provider_account_label: 'me' }));
      assert.equal(labelled?.provider_account_label, 'me');
      const declined = await tokens.change('t1', () => undefined);
      assert.equal(declined?.provider_account_label, 'me');
      assert.equal(await tokens.change('missing', (t) => t), undefined);
      await tokens.delete('t1');
      assert.equal(await tokens.get('t1'), undefined);
    });

    it('reads flows by id, tenant, provider record and those exchanging a code; a change is atomic', async () => {
      const flows = new CollectionAuthFlows(await openStore(backend));
      await flows.start(flow('f1', 'a', 'pending'));
      await flows.start(flow('f2', 'a', 'exchanging'));
      await flows.start(flow('f3', 'b', 'exchanging', 'other-record'));
      assert.deepEqual(ids(await flows.exchanging()).sort(), ['f2', 'f3']);
      assert.deepEqual(ids(await flows.ofTenant('a')), ['f1', 'f2']);
      assert.deepEqual(ids(await flows.ofProvider('github-record')), ['f1', 'f2']);
      const taken = await flows.change('f1', (f) => (f.status === 'pending' ? { ...f, status: 'exchanging', claim: 'c1' } : undefined));
      assert.equal(taken?.claim, 'c1');
      const again = await flows.change('f1', (f) => (f.status === 'pending' ? { ...f, claim: 'c2' } : undefined));
      assert.equal(again?.claim, 'c1', 'a second claim finds it taken');
      await flows.delete('f1');
      assert.equal(await flows.get('f1'), undefined);
    });
  });
}
