// What the fan-out ceiling (fanoutCeiling.ts) plays so that its load is agentplane's (issue 87):
// on each of its threads, the events agentplane's matching thread sent while its runs went
// under the subscribers, each at its time in that window, as the same frames. Until 2026-12-02
// the ceiling played one recorded run (4 events) on a timer at agentplane's runs/s, for 1 s plus
// its own `/ok` sampling only: 13,600 deliveries in the lead's quiet run against ~94,000 in
// agentplane's window (472 runs × 4 events × 50 subscribers a thread; its 132,600 received also
// count the history each subscriber is replayed as it subscribes), with `/ok` sampled in its
// first two seconds. The events are recorded by the first subscriber of each thread as it reads
// them: read back afterwards, a thread replays only its last few runs (older runs' logs are gone).

/** One recorded event to play: its JSON cut around its `params.timestamp` (the time it is sent goes there). */
export interface Template {
  method: string;
  /** Its seq on the thread (the SSE frame's `id:`). */
  seq: number;
  before: string;
  after: string;
}

/** A clump of one thread's events agentplane made in the same ms: played (framed once, written once a subscriber) at `offsetMs` from the start. */
export interface Clump {
  offsetMs: number;
  events: Template[];
}

interface Stamped {
  method?: string;
  seq?: number;
  params?: { namespace?: unknown[]; timestamp?: number; data?: { event?: string } };
}

/** The event's JSON cut around its timestamp's digits; the rest (its seq, event_id, data) kept as agentplane sent it. */
export function template(json: string): Template {
  const event = JSON.parse(json) as Stamped;
  const params = json.indexOf('"params":');
  const at = json.indexOf('"timestamp":', params) + '"timestamp":'.length;
  let end = at;
  while (end < json.length && json.charCodeAt(end) >= 48 && json.charCodeAt(end) <= 57) end += 1;
  return { method: event.method ?? 'event', seq: event.seq ?? 0, before: json.slice(0, at), after: json.slice(end) };
}

/** The event's JSON with `now` as its timestamp. */
export const stamped = (t: Template, now: number) => `${t.before}${now}${t.after}`;

/** A root `running` carries its run's creation time, which is stamped to the second (`created_at`). */
const isRunningStamp = (e: Stamped) => e.method === 'lifecycle' && (e.params?.namespace ?? []).length === 0 && e.params?.data?.event === 'running';

/**
 * One thread's events (JSON, in seq order, as a subscriber read them) of the window that began
 * at `fromMs` (the server's clock, Date.now()): from the first stamped at or after it on, with
 * the root `running` just before it when that run began in the window's second (its stamp is
 * its creation time cut to the second, so it may read before `fromMs`). Each clump at its
 * offset from `fromMs`, never before the clump before it (that running's coarse stamp).
 */
export function windowClumps(jsons: string[], fromMs: number): Clump[] {
  const events = jsons.map((json) => ({ json, e: JSON.parse(json) as Stamped }));
  const stamp = (i: number) => events[i]!.e.params?.timestamp ?? 0;
  let first = events.findIndex((_, i) => stamp(i) >= fromMs);
  if (first < 0) return [];
  if (first > 0 && isRunningStamp(events[first - 1]!.e) && stamp(first - 1) >= Math.floor(fromMs / 1000) * 1000) first -= 1;
  const clumps: Clump[] = [];
  let offset = 0;
  let lastStamp = NaN;
  for (let i = first; i < events.length; i += 1) {
    const at = Math.max(offset, stamp(i) - fromMs);
    const last = clumps[clumps.length - 1];
    if (last && at === offset && stamp(i) === lastStamp) last.events.push(template(events[i]!.json));
    else clumps.push({ offsetMs: at, events: [template(events[i]!.json)] });
    offset = at;
    lastStamp = stamp(i);
  }
  return clumps;
}

/** How many events a timeline plays, and over how long (ms, its last clump's offset). */
export function timelineSize(threads: Clump[][]): { events: number; lastMs: number } {
  let events = 0;
  let lastMs = 0;
  for (const clumps of threads)
    for (const c of clumps) {
      events += c.events.length;
      lastMs = Math.max(lastMs, c.offsetMs);
    }
  return { events, lastMs };
}

/** Deliveries a timeline makes to `subscribers` opened as the bench opens them (the n-th reads thread n mod the threads). */
export function windowDeliveries(threads: Clump[][], subscribers: number): number {
  let sum = 0;
  for (let n = 0; n < subscribers; n += 1) for (const c of threads[n % threads.length] ?? []) sum += c.events.length;
  return sum;
}
