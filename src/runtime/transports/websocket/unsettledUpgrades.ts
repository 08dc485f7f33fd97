// The WebSocket upgrades of each remote address that are neither upgraded nor closed yet: being
// admitted (the project's custom auth may take its time) or refused and still writing their
// answer. Key-less clients that open upgrades without end are held to a few each, so they
// cannot take the descriptors every other client needs.
import type { Duplex } from 'node:stream';

export class UnsettledUpgrades {
  private readonly byAddress = new Map<string, number>();
  private readonly held = new Map<Duplex, string>();

  constructor(readonly maxPerAddress: number) {}

  /** Counts `socket` against `address` until it is settled or closed; false (nothing counted) when the address is at its bound. */
  take(address: string, socket: Duplex): boolean {
    const count = this.byAddress.get(address) ?? 0;
    if (count >= this.maxPerAddress) return false;
    this.byAddress.set(address, count + 1);
    this.held.set(socket, address);
    socket.once('close', () => this.settle(socket));
    return true;
  }

  /** `socket` is upgraded or gone: it no longer counts (a second call does nothing). */
  settle(socket: Duplex): void {
    const address = this.held.get(socket);
    if (address === undefined) return;
    this.held.delete(socket);
    const left = (this.byAddress.get(address) ?? 1) - 1;
    if (left > 0) this.byAddress.set(address, left);
    else this.byAddress.delete(address);
  }

  /** How many sockets `address` has unsettled. */
  of(address: string): number {
    return this.byAddress.get(address) ?? 0;
  }
}
