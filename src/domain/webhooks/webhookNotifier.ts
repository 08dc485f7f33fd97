// Calls a run's webhook once the run has ended: POST of the run (plus its final values and
// times, as upstream sends them), retried with exponential back-off, each attempt bounded by
// a timeout and logged. The delivery is stored with the run's end (RunEndOutbox: the same
// write) and held by this server under a lease (ports/webhookOutbox.ts): a server that dies
// or stops with deliveries still being retried leaves them to the others once the lease runs
// out (at once for a stop), and on the embedded store the next process resumes them. Delivery
// never changes the run: a failing receiver only costs log lines. A webhook that is a path
// (`/custom/hook`) goes, as upstream's, to this server itself — the project's own routes
// (http.app), through the server as any request to it — so the network rules for absolute
// URLs do not apply to it. How a POST is made and what its answer means is the sender's
// (ports/webhookSender.ts).
import type { Logger } from '../ports/logger.ts';
import type { WriteOp } from '../ports/store.ts';
import type { RunEnded } from '../agent/runs/runEndRecord.ts';
import { uuid4 } from '../agent/ids.ts';
import { webhookUrlProblem, type WebhookUrlPolicy } from './webhookPolicy.ts';
import type { WebhookSender } from '../ports/webhookSender.ts';
import type { PendingWebhook, WebhookOutbox } from '../ports/webhookOutbox.ts';

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

export interface WebhookNotifierDeps {
  settings: WebhookSettings;
  log: Logger;
  /** The transport, holding the project's network rule (webhooks.url). */
  send: WebhookSender;
  outbox: WebhookOutbox;
  /** This server among those sharing the store, distinct per process: the holder of its leases. */
  holder: string;
  /** This server's own address (where a webhook that is a path goes), once it listens. */
  ownUrl?: () => string | undefined;
}

/**
 * How long past an attempt's time limit (and the wait before it) a holder's silence is taken
 * for its end: its deliveries then go to another server.
 */
export const WEBHOOK_LEASE_MARGIN_MS = 2_000;
/** How often a server looks for deliveries whose holder is gone. */
export const WEBHOOK_TAKEOVER_EVERY_MS = 1_000;
const TAKEN_AT_ONCE = 20;

export class WebhookNotifier {
  private readonly active = new Set<Promise<void>>();
  /** The retries waiting for their time, woken early by stop. */
  private readonly waiting = new Set<() => void>();
  private stopped = false;
  private looking = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: WebhookNotifierDeps) {}

  /** Why a run may not name this webhook, or null. */
  problem(url: string): string | null {
    return ownPath(url) ? null : webhookUrlProblem(url, this.deps.settings.url);
  }

  /** The delivery of a run's webhook, written with its end; once written, it is sent from here. */
  forEnd(ended: RunEnded): { ops: WriteOp[]; written(): void } | undefined {
    const url = (ended.run.kwargs as Record<string, unknown> | undefined)?.webhook;
    if (typeof url !== 'string' || !url) return undefined;
    const payload = {
      ...ended.run,
      run_started_at: ended.startedAt.toISOString(),
      run_ended_at: ended.endedAt.toISOString(),
      values: ended.values,
      ...(ended.error ? { error: ended.error.message } : {}),
    };
    const delivery = this.held({ url, runId: ended.run.run_id, payload }, ended.run.run_id);
    return { ops: [this.deps.outbox.putOp(delivery)], written: () => this.track(this.deliver(delivery)) };
  }

  /** Stores a delivery (an A2A push notification) and sends it in the background; it never throws. */
  send(delivery: WebhookDelivery): void {
    const held = this.held(delivery, `${delivery.runId}:${uuid4()}`);
    this.track(
      this.deps.outbox.insert(held).then(
        () => this.deliver(held),
        (err: Error) => this.deps.log.warn('webhook not sent', { run_id: delivery.runId, url: delivery.url, reason: `not stored: ${err.message}` }),
      ),
    );
  }

  /** Looks every little while for deliveries whose holder is gone (a previous process's, on the embedded store: at once). */
  start(): void {
    this.timer = setInterval(() => void this.takeOver(), WEBHOOK_TAKEOVER_EVERY_MS);
    this.timer.unref();
    void this.takeOver();
  }

  /**
   * Stops retrying: deliveries in their current attempt finish (bounded by the timeout), and
   * every delivery still to be retried is left to the other servers at once (or the next start).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    for (const wake of this.waiting) wake();
    while (this.active.size) await Promise.allSettled([...this.active]);
  }

  private held(delivery: WebhookDelivery, id: string): PendingWebhook {
    const now = Date.now();
    return {
      id,
      run_id: delivery.runId,
      url: delivery.url,
      payload: delivery.payload,
      ...(delivery.headers ? { headers: delivery.headers } : {}),
      ...(delivery.exact ? { exact: true } : {}),
      attempts: 0,
      holder: this.deps.holder,
      lease_until: new Date(now + this.timeoutMs() + WEBHOOK_LEASE_MARGIN_MS).toISOString(),
      created_at: new Date(now).toISOString(),
    };
  }

  private timeoutMs(): number {
    return this.deps.settings.timeout_ms ?? 10_000;
  }

  private track(work: Promise<void>): void {
    const task = work
      .catch((err: Error) => this.deps.log.error('webhook delivery failed; another server takes it over when its lease runs out', { error: err.message }))
      .finally(() => this.active.delete(task));
    this.active.add(task);
  }

  private async takeOver(): Promise<void> {
    if (this.looking || this.stopped) return;
    this.looking = true;
    try {
      const now = Date.now();
      const until = new Date(now + this.timeoutMs() + WEBHOOK_LEASE_MARGIN_MS).toISOString();
      const taken = await this.deps.outbox.takeExpired(this.deps.holder, new Date(now).toISOString(), until, TAKEN_AT_ONCE);
      for (const delivery of taken) {
        this.deps.log.info('webhook taken over', { run_id: delivery.run_id, url: delivery.url, attempts: delivery.attempts });
        this.track(this.deliver(delivery));
      }
    } catch (err) {
      this.deps.log.warn('could not look for webhook deliveries left by other servers', { error: (err as Error).message });
    } finally {
      this.looking = false;
    }
  }

  /** Where a delivery goes: an absolute URL as it is, a path on this server. */
  private target(url: string): string | null {
    if (!ownPath(url)) return url;
    const own = this.deps.ownUrl?.();
    return own ? `${own}${url}` : null;
  }

  /** Attempts the delivery this server holds until it is delivered, given up, or left to others. */
  private async deliver(held: PendingWebhook): Promise<void> {
    const { log, settings, outbox, holder } = this.deps;
    const { run_id: runId, url } = held;
    const problem = this.problem(url);
    const target = this.target(url);
    if (problem || !target) {
      log.warn('webhook not sent', { run_id: runId, url, reason: problem ?? 'this server is not listening' });
      return outbox.remove(held.id, holder);
    }
    // this server itself passes every address rule; any other goes by the project's
    const guarded = target === url;
    const attempts = settings.max_attempts ?? 5;
    const base = settings.retry_base_ms ?? 1000;
    const headers = { 'content-type': 'application/json', ...settings.headers, ...held.headers };
    for (let current = held; ;) {
      if (this.stopped) return this.leave(current);
      const attempt = current.attempts + 1;
      const started = performance.now();
      const body = JSON.stringify(current.exact ? current.payload : { ...current.payload, webhook_sent_at: new Date().toISOString() });
      const outcome = await this.deps.send(target, body, headers, this.timeoutMs(), guarded);
      const ms = Math.round(performance.now() - started);
      if (outcome.kind === 'delivered') {
        log.info('webhook delivered', { run_id: runId, url, attempt, status: outcome.status, ms });
        return outbox.remove(held.id, holder);
      }
      if (outcome.kind === 'redirected') {
        // the redirect's target passed no rule: it is not followed, and asking again changes nothing
        log.warn('webhook not delivered: the receiver redirected, and redirects are not followed', { run_id: runId, url, attempt, status: outcome.status });
        return outbox.remove(held.id, holder);
      }
      if (outcome.kind === 'refused') {
        log.warn('webhook not sent', { run_id: runId, url, reason: outcome.reason });
        return outbox.remove(held.id, holder);
      }
      log.warn('webhook attempt failed', {
        run_id: runId,
        url,
        attempt,
        ...(outcome.status !== undefined ? { status: outcome.status } : { error: outcome.error }),
        ms,
      });
      if (attempt >= attempts) {
        log.error('webhook gave up', { run_id: runId, url, attempts });
        return outbox.remove(held.id, holder);
      }
      const wait = base * 2 ** (attempt - 1);
      const next = { ...current, attempts: attempt, lease_until: new Date(Date.now() + wait + this.timeoutMs() + WEBHOOK_LEASE_MARGIN_MS).toISOString() };
      // another server holds it now (this one was thought gone): the delivery is theirs
      if (!(await outbox.update(next, holder))) return;
      current = next;
      await this.sleep(wait);
    }
  }

  /** On stop: the delivery is any server's to take now (the next process's, on the embedded store). */
  private async leave(current: PendingWebhook): Promise<void> {
    if (await this.deps.outbox.update({ ...current, lease_until: new Date().toISOString() }, this.deps.holder))
      this.deps.log.info('webhook left to another server', { run_id: current.run_id, url: current.url, attempts: current.attempts });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms).unref();
      this.waiting.add(wake);
    });
  }
}

/** A path of this server: one leading slash (`//host/...` would name another host). */
const ownPath = (url: string) => /^\/(?![/\\])/.test(url);
