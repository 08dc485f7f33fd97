// The protocol WebSocket sends each event once however many of its subscriptions let it
// through, and remembers what it sent by each subscription's range and filter (sentOnce.ts),
// not by every event's id (issue 87: a socket subscribed for days to a busy thread kept an id
// per event it had delivered). Checked against what remembering every id decides, event by
// event, over random subscriptions: overlapping filters, replays from any `since`, ended
// subscriptions and ones subscribed again, streams that say no scope.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SentOnce, type SubscriptionSends } from '../../../../src/runtime/transports/websocket/sentOnce.ts';
import type { SseEvent } from '../../../../src/runtime/contract.ts';
import type { StreamScope } from '../../../../src/runtime/transports/streamScope.ts';

const CHANNELS = ['values', 'messages', 'lifecycle', 'custom'];
const event = (seq: number, channel: string): SseEvent => Object.freeze({ id: String(seq), event: channel, data: '' });
const scope = (since: number, channels: ReadonlySet<string>): StreamScope<SseEvent> => ({ since, lets: (e) => channels.has(e.event!) });

/** A small deterministic generator (mulberry32), so a failure is the same on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Subscription {
  sends: SubscriptionSends;
  /** The thread's events its stream sends, in order, and how many it has sent. */
  events: SseEvent[];
  at: number;
}

test('decides, event by event, what remembering every id sent decides', () => {
  for (let seed = 1; seed <= 20; seed += 1) {
    const next = random(seed);
    const thread = Array.from({ length: 300 }, (_, i) => event(i + 1, CHANNELS[Math.floor(next() * CHANNELS.length)]!));
    const once = new SentOnce();
    const everyId = new Set<string>();
    const live: Subscription[] = [];
    const subscribe = () => {
      const channels = new Set(CHANNELS.filter(() => next() < 0.5));
      // since: from the start, from an event, or from where a subscription is
      const since = next() < 0.3 ? 0 : next() < 0.5 && live.length ? live[0]!.events[live[0]!.at - 1]?.id : String(Math.floor(next() * 300));
      const from = Number(since ?? 0);
      const key = JSON.stringify([...channels].sort());
      const scoped = next() < 0.9;
      live.push({
        sends: once.open(scoped ? scope(from, channels) : undefined, scoped ? key : undefined),
        events: thread.filter((e) => Number(e.id) > from && channels.has(e.event!)),
        at: 0,
      });
    };
    for (let step = 0; step < 2_000; step += 1) {
      const roll = next();
      if (roll < 0.03 || live.length === 0) subscribe();
      else if (roll < 0.06) live.splice(Math.floor(next() * live.length), 1)[0]!.sends.end();
      else {
        const sub = live[Math.floor(next() * live.length)]!;
        const e = sub.events[sub.at];
        if (!e) continue;
        sub.at += 1;
        const fresh = !everyId.has(e.id!);
        everyId.add(e.id!);
        assert.equal(sub.sends.take(e), fresh, `seed ${seed}, step ${step}: event ${e.id} (${e.event})`);
      }
    }
  }
});

test('a subscription that lasts keeps its range, not the ids of the events it sent', () => {
  const once = new SentOnce();
  const values = once.open(scope(0, new Set(['values'])), 'values');
  const all = once.open(scope(0, new Set(CHANNELS)), 'all');
  let sent = 0;
  for (let seq = 1; seq <= 100_000; seq += 1) {
    const e = event(seq, seq % 3 === 0 ? 'values' : 'messages');
    if (seq % 3 === 0) sent += Number(values.take(e));
    sent += Number(all.take(e));
  }
  assert.equal(sent, 100_000, 'each event once');
  assert.equal(once.size, 2, 'one range per subscription');
});

test('subscribing again from where it was keeps one range per filter', () => {
  const once = new SentOnce();
  const channels = new Set(['values']);
  let last = 0;
  for (let round = 0; round < 1_000; round += 1) {
    const sends = once.open(scope(last, channels), 'values');
    for (let seq = last + 1; seq <= last + 10; seq += 1) assert.ok(sends.take(event(seq, 'values')));
    last += 10;
    sends.end();
  }
  assert.equal(once.size, 1);
  // a replay of it all sends nothing again; another filter's events are still new
  const replay = once.open(scope(0, new Set(['values', 'messages'])), 'both');
  assert.equal(replay.take(event(5, 'values')), false);
  assert.equal(replay.take(event(10_001, 'messages')), true);
});

test('events without an id are always sent; ids that are no number are remembered one by one', () => {
  const once = new SentOnce();
  const a = once.open(undefined, undefined);
  const b = once.open(scope(0, new Set(['values'])), 'values');
  assert.equal(a.take({ event: 'values', data: '' }), true);
  assert.equal(b.take({ event: 'values', data: '' }), true);
  assert.equal(a.take({ id: 'x', event: 'values', data: '' }), true);
  assert.equal(b.take({ id: 'x', event: 'values', data: '' }), false);
  assert.equal(a.take({ id: '01', event: 'values', data: '' }), true);
  assert.equal(b.take({ id: '1', event: 'values', data: '' }), true);
});
