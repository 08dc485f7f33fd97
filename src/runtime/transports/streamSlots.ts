// How many long-lived streaming requests the server holds open: per client and in all. One
// client opening streams without end would otherwise hold a socket, a run subscription and
// memory per stream until the server runs out of file descriptors for everyone else.

export type SlotRefusal = 'client' | 'total';

/** How long a refused client is told to wait before it asks again (Retry-After, google.rpc.RetryInfo). */
export const SLOT_RETRY_AFTER_SECONDS = 5;

/** What a refused client is told: which cap refused it, its size and the setting that sets it. */
export function slotRefusalDetail(refused: SlotRefusal, slots: StreamSlots, what = 'streams'): string {
  return refused === 'client'
    ? `Too many open ${what} for this client (${slots.maxPerClient}, AGENTPLANE_MAX_STREAMS_PER_CLIENT); close one, or retry later.`
    : `The server holds as many open ${what} as it serves (${slots.maxTotal}, AGENTPLANE_MAX_STREAMS); retry later.`;
}

export class StreamSlots {
  private readonly perClient = new Map<string, number>();
  private total = 0;

  constructor(
    readonly maxPerClient: number,
    readonly maxTotal: number,
  ) {}

  /** Takes a slot for `client`: the function that gives it back (call it once), or which cap refused it. */
  take(client: string): (() => void) | SlotRefusal {
    if (this.total >= this.maxTotal) return 'total';
    const held = this.perClient.get(client) ?? 0;
    if (held >= this.maxPerClient) return 'client';
    this.perClient.set(client, held + 1);
    this.total += 1;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.total -= 1;
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
    };
  }
}
