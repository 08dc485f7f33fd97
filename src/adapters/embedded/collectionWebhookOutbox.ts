// Webhook deliveries in a collection of the store. On the embedded store one server owns the
// data directory, so a delivery another holder left is a previous process's: it is taken at
// once (`sole`). On PostgreSQL the same collection is a table, and pgWebhookOutbox.ts takes
// expired leases in SQL instead of reading the table through.
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';
import type { PendingWebhook, WebhookOutbox } from '../../domain/ports/webhookOutbox.ts';

export const WEBHOOK_DELIVERIES = 'webhook_deliveries';

export class CollectionWebhookOutbox implements WebhookOutbox {
  protected readonly deliveries: Collection<PendingWebhook>;

  /** `sole`: this server is the only one on the store (the embedded store). */
  constructor(
    store: Store,
    private readonly sole: boolean,
  ) {
    this.deliveries = store.collection<PendingWebhook>(WEBHOOK_DELIVERIES);
  }

  putOp(delivery: PendingWebhook): WriteOp {
    return { collection: WEBHOOK_DELIVERIES, id: delivery.id, value: delivery };
  }

  async insert(delivery: PendingWebhook): Promise<void> {
    await this.deliveries.put(delivery.id, delivery);
  }

  async takeExpired(holder: string, now: string, until: string, limit: number): Promise<PendingWebhook[]> {
    const free = (d: PendingWebhook) => d.lease_until <= now || (this.sole && d.holder !== holder);
    const taken: PendingWebhook[] = [];
    for (const candidate of await this.deliveries.list({ filter: free, limit })) {
      const next = { ...candidate, holder, lease_until: until };
      // checked again in the atomic change: another server may have taken it since the list
      const stored = await this.deliveries.update(candidate.id, (current) => (free(current) ? next : undefined));
      if (stored?.holder === holder && stored.lease_until === until) taken.push(stored);
    }
    return taken;
  }

  async update(delivery: PendingWebhook, holder: string): Promise<boolean> {
    const stored = await this.deliveries.update(delivery.id, (current) => (current.holder === holder ? delivery : undefined));
    return stored !== undefined && stored.holder === holder && stored.attempts === delivery.attempts && stored.lease_until === delivery.lease_until;
  }

  async remove(id: string, holder: string): Promise<void> {
    const current = await this.deliveries.get(id);
    if (current?.holder === holder) await this.deliveries.delete(id);
  }
}
