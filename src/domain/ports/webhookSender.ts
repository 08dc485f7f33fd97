// How one webhook POST leaves the process, and what came of it: the adapter
// (adapters/webhooks/webhookTransport.ts) connects only to addresses the project's network rule
// allows, checked at connection time, and reads the receiver's answer. The domain
// (webhooks/webhookNotifier.ts) decides from the outcome alone whether to ask again.

/** What one attempt came to. */
export type SendOutcome =
  /** The receiver took it (a 2xx). */
  | { kind: 'delivered'; status: number }
  /** It may go through if asked again: the receiver failed or did not answer in time. */
  | { kind: 'failed'; status?: number; error?: string }
  /** The receiver redirected: a redirect is never followed (its target passed no rule), and asking again changes nothing. */
  | { kind: 'redirected'; status: number }
  /** Nothing was sent: the rule refuses every address the host has; asking again changes nothing. */
  | { kind: 'refused'; reason: string };

/**
 * POSTs a JSON body, bounded by the timeout. `guarded` is false only for this server's own
 * address (a webhook that is a path), which every rule allows. Never rejects.
 */
export type WebhookSender = (url: string, body: string, headers: Record<string, string>, timeoutMs: number, guarded: boolean) => Promise<SendOutcome>;
