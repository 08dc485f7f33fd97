// The auth flows in a collection of the store, indexed by tenant and provider record.
import type { Collection, Store } from '../../domain/ports/store.ts';
import type { AuthFlowRecord, AuthFlowsRepository } from '../../domain/ports/authFlowsRepository.ts';

export class CollectionAuthFlows implements AuthFlowsRepository {
  private readonly flows: Collection<AuthFlowRecord>;

  constructor(store: Store) {
    this.flows = store.collection('cp-auth-flows', { indexes: ['tenant_id', 'provider_record_id'] });
  }

  start(flow: AuthFlowRecord): Promise<void> {
    return this.flows.put(flow.id, flow);
  }

  get(authId: string): Promise<AuthFlowRecord | undefined> {
    return this.flows.get(authId);
  }

  change(authId: string, next: (flow: AuthFlowRecord) => AuthFlowRecord | undefined): Promise<AuthFlowRecord | undefined> {
    return this.flows.update(authId, next);
  }

  exchanging(): Promise<AuthFlowRecord[]> {
    return this.flows.list({ filter: (f) => f.status === 'exchanging' });
  }

  ofTenant(tenantId: string): Promise<AuthFlowRecord[]> {
    return this.flows.list({ where: { tenant_id: tenantId } });
  }

  ofProvider(providerRecordId: string): Promise<AuthFlowRecord[]> {
    return this.flows.list({ where: { provider_record_id: providerRecordId } });
  }

  async delete(authId: string): Promise<void> {
    await this.flows.delete(authId);
  }
}
