// How a webhook's POST leaves the process: the adapter (adapters/webhooks/webhookTransport.ts)
// connects only to addresses the project's network rule allows, checked at connection time.
/** The receiver's answer to one POST. */
export interface PostOutcome {
  status: number;
}

/** Thrown when the rule refuses every address the host has: no connection was made. */
export class RefusedAddress extends Error {}

/**
 * POSTs a JSON body, bounded by the timeout. `guarded` is false only for this server's own
 * address (a webhook that is a path), which every rule allows. Throws RefusedAddress.
 */
export type PostJson = (url: string, body: string, headers: Record<string, string>, timeoutMs: number, guarded: boolean) => Promise<PostOutcome>;
