// Webhook deliveries on PostgreSQL, in agentplane_webhook_deliveries (pgTables.ts): replicas
// take expired leases with FOR UPDATE SKIP LOCKED, so each delivery goes to one of them, and a
// holder's removal is fenced by its holder column.
import type { PendingWebhook } from '../../domain/ports/webhookOutbox.ts';
import { CollectionWebhookOutbox } from '../embedded/collectionWebhookOutbox.ts';
import type { PgStore } from './pgStore.ts';

export class PgWebhookOutbox extends CollectionWebhookOutbox {
  constructor(private readonly pgStore: PgStore) {
    super(pgStore, false);
  }

  override async takeExpired(holder: string, now: string, until: string, limit: number): Promise<PendingWebhook[]> {
    // every replica looks every little while: a look that finds nothing is one statement
    const { rowCount } = await this.pgStore.query(
      'SELECT 1 FROM agentplane_webhook_deliveries WHERE lease_until <= $1 LIMIT 1',
      [now],
      'agentplane_webhooks_expired',
    );
    if (!rowCount) return [];
    return this.pgStore.transaction(async (client) => {
      const { rows } = await client.query<{ doc: PendingWebhook }>(
        'SELECT doc FROM agentplane_webhook_deliveries WHERE lease_until <= $1 ORDER BY lease_until LIMIT $2 FOR UPDATE SKIP LOCKED',
        [now, limit],
      );
      // the document is rewritten whole (json keeps the payload's key order as it was sent)
      const taken = rows.map(({ doc }) => ({ ...doc, holder, lease_until: until }));
      for (const doc of taken)
        await client.query('UPDATE agentplane_webhook_deliveries SET holder = $2, lease_until = $3, doc = $4::json WHERE id = $1', [
          doc.id,
          holder,
          until,
          JSON.stringify(doc),
        ]);
      return taken;
    });
  }

  override async remove(id: string, holder: string): Promise<void> {
    await this.pgStore.query('DELETE FROM agentplane_webhook_deliveries WHERE id = $1 AND holder = $2', [id, holder]);
  }
}
