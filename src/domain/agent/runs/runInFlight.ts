// What the run engine holds of a run executing on this server: its abort, why it is being
// stopped, its claim and when that claim was last kept, and a protocol run's numbering.
import type { Claim } from '../../ports/runClaims.ts';
import type { StopReason } from './runStateMachine.ts';

export interface InFlight {
  controller: AbortController;
  stop: StopReason | null;
  /** Absent while it is being taken: not yet visible to renewals, so not to be renewed. */
  claim?: Claim;
  /** performance.now() when the claim, or the last renewal that kept it, was sent. */
  renewedAt: number;
  /** A protocol run's numbering (protocol/events.ts): its thread's sequence number before it, and its events so far. */
  protocol?: { base: number; published: number };
}
