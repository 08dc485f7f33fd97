// Calls a run's webhook once the run has ended: POST of the run (plus its final values and
// times, as upstream sends them), retried with exponential back-off, each attempt bounded by
// a timeout and logged. Delivery happens after the run's end is recorded and never changes
// the run: a failing receiver only costs log lines. A webhook that is a path (`/custom/hook`)
// goes, as upstream's, to this server itself — the project's own routes (http.app), through
// the server as any request to it — so the network rules for absolute URLs do not apply to it.
import type { Logger } from '../ports/logger.ts';
import type { RunEnded } from '../agent/runEngine.ts';
import { webhookUrlProblem, type WebhookUrlPolicy } from './webhookPolicy.ts';
import { RefusedAddress, type PostJson } from '../ports/webhookTransport.ts';

export interface WebhookSettings {
  url?: WebhookUrlPolicy;
  /** Extra headers sent with every delivery (e.g. a shared secret). */
  headers?: Record<string, string>;
  /** Attempts in all, the first included (default 5). */
  max_attempts?: number;
  /** Wait before the second attempt; doubled for each further one (default 1000 ms). */
  retry_base_ms?: number;
  /** Time limit of one attempt (default 10 s). */
  timeout_ms?: number;
}

export interface WebhookDelivery {
  url: string;
  payload: Record<string, unknown>;
  /** For the log lines. */
  runId: string;
  /** Headers of this delivery (after the configured ones). */
  headers?: Record<string, string>;
  /** Send the payload as it is: no `webhook_sent_at` (a payload of another protocol, A2A push notifications). */
  exact?: boolean;
}

export class WebhookNotifier {
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  /**
   * `post`: the transport, holding the project's network rule (webhooks.url); `ownUrl`: this
   * server's own address (where a webhook that is a path goes), once it listens.
   */
  constructor(
    private readonly settings: WebhookSettings,
    private readonly log: Logger,
    private readonly post: PostJson,
    private readonly ownUrl: () => string | undefined = () => undefined,
  ) {}

  /** Why a run may not name this webhook, or null. */
  problem(url: string): string | null {
    return ownPath(url) ? null : webhookUrlProblem(url, this.settings.url);
  }

  /** Where a delivery goes: an absolute URL as it is, a path on this server. */
  private target(url: string): string | null {
    if (!ownPath(url)) return url;
    const own = this.ownUrl();
    return own ? `${own}${url}` : null;
  }

  /** Starts the delivery in the background; it never throws. */
  send(delivery: WebhookDelivery): void {
    const task = this.deliver(delivery).finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Stops retrying; deliveries in their current attempt finish (bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.pending]);
  }

  private async deliver({ url, payload, runId, headers: own, exact }: WebhookDelivery): Promise<void> {
    const problem = this.problem(url);
    const target = this.target(url);
    if (problem || !target) {
      this.log.warn('webhook not sent', { run_id: runId, url, reason: problem ?? 'this server is not listening' });
      return;
    }
    // this server itself passes every address rule; any other goes by the project's
    const guarded = target === url;
    const attempts = this.settings.max_attempts ?? 5;
    const base = this.settings.retry_base_ms ?? 1000;
    for (let attempt = 1; attempt <= attempts && !this.stopped; attempt++) {
      const started = performance.now();
      try {
        const body = JSON.stringify(exact ? payload : { ...payload, webhook_sent_at: new Date().toISOString() });
        const headers = { 'content-type': 'application/json', ...this.settings.headers, ...own };
        const { status } = await this.post(target, body, headers, this.settings.timeout_ms ?? 10_000, guarded);
        const ms = Math.round(performance.now() - started);
        if (status >= 200 && status < 300) {
          this.log.info('webhook delivered', { run_id: runId, url, attempt, status, ms });
          return;
        }
        if (status >= 300 && status < 400) {
          // the redirect's target passed no rule: it is not followed, and asking again changes nothing
          this.log.warn('webhook not delivered: the receiver redirected, and redirects are not followed', { run_id: runId, url, attempt, status });
          return;
        }
        this.log.warn('webhook attempt failed', { run_id: runId, url, attempt, status, ms });
      } catch (err) {
        if (err instanceof RefusedAddress) {
          this.log.warn('webhook not sent', { run_id: runId, url, reason: err.message });
          return;
        }
        this.log.warn('webhook attempt failed', { run_id: runId, url, attempt, error: (err as Error).message });
      }
      if (attempt < attempts) await sleep(base * 2 ** (attempt - 1));
    }
    if (!this.stopped) this.log.error('webhook gave up', { run_id: runId, url, attempts });
  }
}

/** A path of this server: one leading slash (`//host/...` would name another host). */
const ownPath = (url: string) => /^\/(?![/\\])/.test(url);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** The upstream payload: the run, its final status and times, and the thread's values (or the error). */
export function sendWebhook(notifier: WebhookNotifier, ended: RunEnded): void {
  const url = (ended.run.kwargs as Record<string, unknown> | undefined)?.webhook;
  if (typeof url !== 'string' || !url) return;
  notifier.send({
    url,
    runId: ended.run.run_id,
    payload: {
      ...ended.run,
      run_started_at: ended.startedAt.toISOString(),
      run_ended_at: ended.endedAt.toISOString(),
      values: ended.values,
      ...(ended.error ? { error: ended.error.message } : {}),
    },
  });
}
