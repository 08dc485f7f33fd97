// Webhook deliveries are held in the store under a lease (webhookNotifier.ts over the
// outbox): retried until delivered or given up, left to the others on stop, taken over once
// their holder's lease has run out (or at once from a previous process on the embedded store),
// and sent by one holder only; what the sender answered decides, never an HTTP status here.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionWebhookOutbox, WEBHOOK_DELIVERIES } from '../../../src/adapters/embedded/collectionWebhookOutbox.ts';
import { WebhookNotifier, type WebhookSettings } from '../../../src/domain/webhooks/webhookNotifier.ts';
import type { RunEnded } from '../../../src/domain/agent/runs/runEndRecord.ts';
import type { SendOutcome, WebhookSender } from '../../../src/domain/ports/webhookSender.ts';
import type { PendingWebhook } from '../../../src/domain/ports/webhookOutbox.ts';
import type { Store } from '../../../src/domain/ports/store.ts';
import type { Logger } from '../../../src/domain/ports/logger.ts';
import type { Run } from '../../../generated/agent-server/types.gen.ts';

type Sent = { holder: string; body: Record<string, unknown> }[];

interface Line {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}
function recordingLog(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      lines.push({ level, msg, fields });
  const log = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), routine: at('info'), child: () => log, enabled: () => true };
  return log as unknown as Logger;
}

/** A sender answering from a script (the last answer repeats), noting each body it was given. */
function scripted(answers: SendOutcome[], sent: Sent, holder: string): WebhookSender {
  let i = 0;
  return async (_url, body) => {
    sent.push({ holder, body: JSON.parse(body) });
    return answers[Math.min(i++, answers.length - 1)];
  };
}

const settings: WebhookSettings = { retry_base_ms: 20, max_attempts: 4, timeout_ms: 200 };
const ended = (runId: string): RunEnded => ({
  run: { run_id: runId, thread_id: 't', status: 'success', kwargs: { webhook: 'http://hooks.example/h' } } as unknown as Run,
  values: { messages: [] },
  startedAt: new Date(1_000),
  endedAt: new Date(2_000),
  queuedMs: 0,
});

function notifier(store: Store, holder: string, answers: SendOutcome[], sent: Sent, lines: Line[] = [], sole = false) {
  return new WebhookNotifier({
    settings,
    log: recordingLog(lines),
    send: scripted(answers, sent, holder),
    outbox: new CollectionWebhookOutbox(store, sole),
    holder,
  });
}

/** The run's end written with its delivery, as the run engine writes it (one store write), then started. */
async function endRun(store: Store, webhooks: WebhookNotifier, runId: string): Promise<void> {
  const follows = webhooks.forEnd(ended(runId))!;
  await store.write(follows.ops);
  follows.written();
}

const waitFor = async (what: string, check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
};
const pending = (store: Store) => store.collection<PendingWebhook>(WEBHOOK_DELIVERIES).list();
const failed: SendOutcome = { kind: 'failed', status: 503 };
const delivered: SendOutcome = { kind: 'delivered', status: 200 };

describe('webhook deliveries', () => {
  it('a delivery is retried until delivered, logged per attempt, and gone from the store once delivered', async () => {
    const store = await openJournalStore({ dataDir: null });
    const sent: Sent = [];
    const lines: Line[] = [];
    const a = notifier(store, 'a', [failed, { kind: 'failed', error: 'socket hang up' }, delivered], sent, lines);
    await endRun(store, a, 'r1');
    await waitFor('the delivery', async () => lines.some((l) => l.msg === 'webhook delivered') && (await pending(store)).length === 0);
    assert.equal(sent.length, 3);
    assert.deepEqual(
      lines.map((l) => [l.msg, l.fields.attempt]),
      [
        ['webhook attempt failed', 1],
        ['webhook attempt failed', 2],
        ['webhook delivered', 3],
      ],
    );
    assert.equal(lines[1].fields.error, 'socket hang up');
    // the upstream payload: the run, its times, its values, and when this attempt was sent
    const body = sent[2].body;
    assert.equal(body.run_id, 'r1');
    assert.equal(body.run_started_at, new Date(1_000).toISOString());
    assert.equal(body.run_ended_at, new Date(2_000).toISOString());
    assert.deepEqual(body.values, { messages: [] });
    assert.equal(typeof body.webhook_sent_at, 'string');
    await a.stop();
  });

  it('gives up after max_attempts; a redirect or a refused address is not asked again', async () => {
    for (const [answer, msg] of [
      [failed, 'webhook gave up'],
      [{ kind: 'redirected', status: 302 }, 'webhook not delivered: the receiver redirected, and redirects are not followed'],
      [{ kind: 'refused', reason: 'webhook host h: 10.0.0.1 is not a public address' }, 'webhook not sent'],
    ] as const) {
      const store = await openJournalStore({ dataDir: null });
      const sent: Sent = [];
      const lines: Line[] = [];
      const a = notifier(store, 'a', [answer], sent, lines);
      await endRun(store, a, 'r1');
      await waitFor(msg, async () => lines.some((l) => l.msg === msg) && (await pending(store)).length === 0);
      assert.equal(sent.length, answer === failed ? settings.max_attempts : 1, msg);
      await a.stop();
    }
  });

  it('a server stopping with a delivery in retry leaves it to another at once, which delivers it once', async () => {
    const store = await openJournalStore({ dataDir: null });
    const sent: Sent = [];
    const stopping: Line[] = [];
    const a = notifier(store, 'a', [failed], sent, stopping);
    await endRun(store, a, 'r1');
    await waitFor('a first failed attempt', () => sent.length >= 1);
    await a.stop();
    assert.ok(
      stopping.some((l) => l.msg === 'webhook left to another server' && l.fields.run_id === 'r1'),
      'the stop says so',
    );
    const after = sent.length;
    const [left] = await pending(store);
    assert.ok(Date.parse(left.lease_until) <= Date.now(), 'its lease ends with the stop');
    const lines: Line[] = [];
    const b = notifier(store, 'b', [delivered], sent, lines);
    b.start();
    await waitFor('the delivery by b', async () => (await pending(store)).length === 0);
    assert.equal(sent.length, after + 1);
    assert.equal(sent.at(-1)!.holder, 'b');
    assert.ok(lines.some((l) => l.msg === 'webhook taken over' && l.fields.run_id === 'r1'));
    await b.stop();
  });

  it('a holder that is gone (it never stopped) leaves its delivery to another once its lease runs out, and writes nothing after', async () => {
    const store = await openJournalStore({ dataDir: null });
    const sent: Sent = [];
    // a's attempt never answers: it stands for a server that died mid-retry
    let hung = false;
    const a = new WebhookNotifier({
      settings,
      log: recordingLog([]),
      send: () => ((hung = true), new Promise<SendOutcome>(() => {})),
      outbox: new CollectionWebhookOutbox(store, false),
      holder: 'a',
    });
    await endRun(store, a, 'r1');
    await waitFor('a’s attempt', () => hung);
    const b = notifier(store, 'b', [delivered], sent);
    b.start();
    // not before the lease (the attempt's time limit and the margin) has run out
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(sent.length, 0);
    await waitFor('the delivery by b', async () => (await pending(store)).length === 0);
    assert.deepEqual(
      sent.map((s) => s.holder),
      ['b'],
    );
    await b.stop();
  });

  it('a delivery another server took over is not retried by its old holder', async () => {
    const store = await openJournalStore({ dataDir: null });
    const outbox = new CollectionWebhookOutbox(store, false);
    let release!: (answer: SendOutcome) => void;
    const a = new WebhookNotifier({
      settings,
      log: recordingLog([]),
      send: () => new Promise<SendOutcome>((resolve) => (release = resolve)),
      outbox,
      holder: 'a',
    });
    await endRun(store, a, 'r1');
    await waitFor('a’s attempt', () => release !== undefined);
    // b takes it over meanwhile (a was thought gone)
    const [held] = await pending(store);
    await store.collection<PendingWebhook>(WEBHOOK_DELIVERIES).put(held.id, { ...held, holder: 'b' });
    release(failed);
    await a.stop();
    const [kept] = await pending(store);
    assert.equal(kept.holder, 'b');
    assert.equal(kept.attempts, 0, 'a wrote nothing for it');
  });

  it('on the embedded store a restart takes what the previous process held at once, its lease notwithstanding', async () => {
    const store = await openJournalStore({ dataDir: null });
    const sent: Sent = [];
    const before = new WebhookNotifier({
      settings: { ...settings, timeout_ms: 60_000 },
      log: recordingLog([]),
      send: () => new Promise<SendOutcome>(() => {}),
      outbox: new CollectionWebhookOutbox(store, true),
      holder: 'previous',
    });
    await store.write(before.forEnd(ended('r1'))!.ops);
    const [held] = await pending(store);
    assert.ok(Date.parse(held.lease_until) > Date.now() + 30_000);
    const next = notifier(store, 'next', [delivered], sent, [], true);
    next.start();
    await waitFor('the delivery', async () => (await pending(store)).length === 0);
    assert.deepEqual(
      sent.map((s) => s.holder),
      ['next'],
    );
    await next.stop();
  });

  it('an A2A push is stored, sent exactly as given with its own headers, and removed once delivered', async () => {
    const store = await openJournalStore({ dataDir: null });
    const seen: Record<string, string>[] = [];
    const a = new WebhookNotifier({
      settings: { ...settings, headers: { 'x-shared': 's' } },
      log: recordingLog([]),
      send: async (_url, body, headers) => {
        seen.push(headers);
        assert.deepEqual(JSON.parse(body), { task: { id: 'k' } });
        return delivered;
      },
      outbox: new CollectionWebhookOutbox(store, false),
      holder: 'a',
    });
    a.send({ url: 'http://hooks.example/p', runId: 'r1', payload: { task: { id: 'k' } }, headers: { 'x-a2a-notification-token': 't' }, exact: true });
    await waitFor('the push', async () => seen.length === 1 && (await pending(store)).length === 0);
    assert.deepEqual(seen[0], { 'content-type': 'application/json', 'x-shared': 's', 'x-a2a-notification-token': 't' });
    await a.stop();
  });
});
