// A tenant's requests beyond a few at once each wait for a turn of the event loop of their own
// (shared/turns.ts) before they are handled. Requests that arrive together are read in the same
// poll of the loop and were handled back to back: a tenant's 32 connections, answered 429 until
// it may retry and all let go at once, came back together, and the ~30 requests the rate then
// admitted ran 15-35 ms with no socket read, so another tenant's request waited behind all of
// them (issue 83). Now another tenant's request is read and handled between any two of them;
// a tenant sending one request at a time never waits. The turns are the tenant's own
// (shared/turns.ts serves owners in rotation): another tenant's piece that waits a turn (its
// run's start or end, its own requests past two) waits for one of this tenant's, not its queue.
// A request is a light piece: the tenant's next follows it in the same turn while the tenant's
// requests of that turn began under LIGHT_SLICE_MS ago (a turn of its own for each cost more
// than the request at ten connections, issue 86).
import { ownTurn } from '../../../shared/turns.ts';

/** A request's turn: a light piece of its tenant's. */
const requestTurn: TurnScheduler = (owner) => ownTurn(owner, true);

/** Requests of one tenant handled at once before the next waits its own turn. */
const AT_ONCE = 2;

/** Ends a request's hold on its tenant's count; a second call does nothing. */
export type LeaveTurn = () => void;

/** Resolves in a turn of the event loop of `owner`'s own (shared/turns.ts); a test gives the turns by hand. */
export type TurnScheduler = (owner: string) => Promise<void>;

export class TenantTurns {
  private readonly busy = new Map<string, number>();

  constructor(private readonly turn: TurnScheduler = requestTurn) {}

  /**
   * Enters a request of `tenant`: at once (the function that ends it) when fewer than AT_ONCE of
   * its requests are being handled, otherwise a promise of it once the request's turn has come.
   * Not a promise every time: an `await` of each request's entry cost a promise, a closure of
   * the async function and a hop through the microtask queue on every request of every route.
   */
  enter(tenant: string): LeaveTurn | Promise<LeaveTurn> {
    if ((this.busy.get(tenant) ?? 0) >= AT_ONCE) return this.turn(tenant).then(() => this.take(tenant));
    return this.take(tenant);
  }

  private take(tenant: string): LeaveTurn {
    this.busy.set(tenant, (this.busy.get(tenant) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const now = (this.busy.get(tenant) ?? 1) - 1;
      if (now > 0) this.busy.set(tenant, now);
      else this.busy.delete(tenant);
    };
  }
}
