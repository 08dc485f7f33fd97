// Where webhook deliveries wait until they are delivered or given up: stored with the run's
// end (in the same write, so a run whose end is recorded has its delivery stored), each held
// by one server under a lease. A server that dies leaves its deliveries to the others once
// their leases run out; on the embedded store (one server at a time) the next process takes
// what the previous one held at once. Embedded: adapters/embedded/collectionWebhookOutbox.ts;
// PostgreSQL: adapters/postgres/pgWebhookOutbox.ts.
import type { WriteOp } from './store.ts';

export interface PendingWebhook {
  /** The run's id for its webhook; the run's id and a suffix for another delivery of it (an A2A push). */
  id: string;
  run_id: string;
  url: string;
  payload: Record<string, unknown>;
  /** Headers of this delivery (the project's configured ones are added when it is sent, never stored). */
  headers?: Record<string, string>;
  /** Send the payload as it is: no `webhook_sent_at` (a payload of another protocol, A2A push notifications). */
  exact?: boolean;
  /** Attempts made so far. */
  attempts: number;
  /** The server holding it (its lease). */
  holder: string;
  /** ISO time after which any server may take it. */
  lease_until: string;
  created_at: string;
}

export interface WebhookOutbox {
  /** The write that stores a new delivery (written with a run's end). */
  putOp(delivery: PendingWebhook): WriteOp;
  /** Stores a new delivery by itself. */
  insert(delivery: PendingWebhook): Promise<void>;
  /**
   * Takes up to `limit` deliveries whose lease ran out by `now` (on the embedded store also any
   * a previous process held), each leased to `holder` until `until`: one server takes each.
   */
  takeExpired(holder: string, now: string, until: string, limit: number): Promise<PendingWebhook[]>;
  /** Writes the delivery's new state while `holder` still holds it; false (nothing written) when another does, or it is gone. */
  update(delivery: PendingWebhook, holder: string): Promise<boolean>;
  /** Removes the delivery while `holder` holds it (delivered or given up). */
  remove(id: string, holder: string): Promise<void>;
}
