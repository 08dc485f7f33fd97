// Each event once per protocol WebSocket, however many of its subscriptions let it through
// (spec/agent-server.openapi.yaml, openThreadEventSocket), in memory bounded by the socket's
// subscriptions, not by every event it has sent (issue 87: a socket subscribed for days to a
// busy thread kept the id of every event it had delivered).
//
// A subscription's stream says which events it sends (streamScope.ts): every event numbered
// after its `since` that its filter lets through, in order. So once it has taken event n, each
// event in (since, n] that its filter lets through has been written on the socket, by it or by
// a subscription before it: two numbers and the filter stand for all those ids. An event is new
// to the socket unless a subscription's range holds it and that subscription's filter lets it
// through. An ended subscription's range is kept (a later one may replay the thread), merged
// with the ended ranges of the same filter that it overlaps or adjoins: a client that
// subscribes again from where it was keeps one range per filter.
//
// A stream that says no scope (none of the thread protocol's) is remembered by its ids, as all
// were before; so is an id that is no event number.
import type { SseEvent } from '../../contract.ts';
import type { StreamScope } from '../streamScope.ts';

/** What the socket has sent through one subscription. */
interface Range {
  /** Every event numbered after `from`, up to `to`, that `lets` passes has been sent. */
  from: number;
  to: number;
  lets: (event: SseEvent) => boolean;
  /** The subscription's filter as the client named it: ranges of one filter may be merged. */
  key: string | undefined;
  /** An unscoped stream's ids (what `lets` passes). */
  ids?: Set<string>;
}

/** One subscription's events, as the socket sends them. */
export interface SubscriptionSends {
  /** Whether the subscription's next event is new to the socket; it counts as sent from now. */
  take(event: SseEvent): boolean;
  /** The subscription ended: what it sent is remembered for the socket's later subscriptions. */
  end(): void;
}

export class SentOnce {
  private readonly live: Range[] = [];
  private ended: Range[] = [];
  private readonly unnumbered = new Set<string>();

  /**
   * A subscription whose stream has `scope` (or none: then its ids are kept), its filter named
   * by `key` (ranges of equal keys are merged; none, never merged).
   */
  open(scope: StreamScope<SseEvent> | undefined, key: string | undefined): SubscriptionSends {
    let range: Range;
    if (scope) range = { from: scope.since, to: scope.since, lets: scope.lets, key };
    else {
      const ids = new Set<string>();
      range = { from: -Infinity, to: -Infinity, lets: (event) => ids.has(event.id!), key: undefined, ids };
    }
    this.live.push(range);
    let ended = false;
    return {
      take: (event) => this.take(range, event),
      end: () => {
        if (ended) return;
        ended = true;
        this.end(range);
      },
    };
  }

  /** How many ranges and ids the socket keeps (for tests: it grows with subscriptions, not with events). */
  get size(): number {
    let size = this.live.length + this.ended.length + this.unnumbered.size;
    for (const range of [...this.live, ...this.ended]) size += range.ids?.size ?? 0;
    return size;
  }

  private take(range: Range, event: SseEvent): boolean {
    const id = event.id;
    if (id === undefined) return true;
    const seq = Number(id);
    if (!Number.isSafeInteger(seq) || String(seq) !== id) {
      if (this.unnumbered.has(id)) return false;
      this.unnumbered.add(id);
      return true;
    }
    const sent = this.holds(seq, event);
    if (seq > range.to) range.to = seq;
    range.ids?.add(id);
    return !sent;
  }

  private holds(seq: number, event: SseEvent): boolean {
    for (const range of this.live) if (seq > range.from && seq <= range.to && range.lets(event)) return true;
    for (const range of this.ended) if (seq > range.from && seq <= range.to && range.lets(event)) return true;
    return false;
  }

  private end(range: Range): void {
    this.live.splice(this.live.indexOf(range), 1);
    // it sent nothing: nothing to remember
    if (range.to <= range.from) return;
    if (range.key !== undefined) {
      // (a, b] and (c, d] of one filter are (min, max] when they overlap or touch
      // (ended ranges of one filter neither overlap nor touch: one pass finds all it joins)
      const apart: Range[] = [];
      for (const other of this.ended) {
        if (other.key !== range.key || other.from > range.to || range.from > other.to) apart.push(other);
        else {
          range.from = Math.min(range.from, other.from);
          range.to = Math.max(range.to, other.to);
        }
      }
      this.ended = apart;
    }
    this.ended.push(range);
  }
}
