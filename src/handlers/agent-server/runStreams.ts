// Streaming: streamRun and streamStatelessRun (create, then stream), joinRunStream and
// joinStatelessRunStream (attach to a run's events), joinThreadStream (every run's events).
// Both only read the run's event log; the worker is the only writer.
import type { SseEvent } from '../../runtime/contract.ts';
import type { RunEvent, RunService } from '../../domain/agent/service.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { failed } from './failures.ts';
import { JsonText } from '../../shared/jsonText.ts';
import { flag, runLocation, statelessRunLocation } from './replies.ts';

const ALWAYS = new Set(['metadata', 'error']);
/**
 * The run's log closes with `end` (how readers inside the server know it is over); on the wire
 * the stream just ends after the run's last event, as on the upstream JS server: the JS SDK
 * hands every event to user code, so an `end` would reach stream/joinStream/RemoteGraph users.
 */
const LOG_END = 'end';

/** The stream mode an event belongs to (`messages/partial|ns` → `messages`, `messages` → `messages-tuple`). */
function modeOf(event: string): string {
  const name = event.split('|')[0];
  if (name === 'messages') return 'messages-tuple';
  return name.split('/')[0];
}

// a run event's data is JSON on the wire, as upstream writes it: text goes quoted (the SSE
// writer sends a bare string as it is, which is for documented non-JSON examples)
const wireData = (e: RunEvent) => (typeof e.data === 'string' ? new JsonText(JSON.stringify(e.data)) : e.data);

// One SSE event per log entry, whoever joins the run: the entries of a run's log are shared
// objects, so every stream joined to it writes the same frame, framed and encoded once by the
// SSE writer (runtime/transports/sse.ts), not once per reader (issue 67: the runs' joins are subscribers
// too). Frozen, as a shared event must be.
const sseOf = new WeakMap<RunEvent, SseEvent>();

function sseEvent(e: RunEvent): SseEvent {
  let made = sseOf.get(e);
  if (!made) {
    sseOf.set(e, (made = Object.freeze({ event: e.event, id: e.id, data: wireData(e) })));
  }
  return made;
}

/** `shared`: the events are the log's own entries (a run's), not made for this reader (a thread stream's, renumbered). */
async function* toSse(events: AsyncIterable<RunEvent>, modes: Set<string> | null, shared = true): AsyncGenerator<SseEvent> {
  for await (const e of events) {
    if (e.event === LOG_END) return;
    if (modes && !ALWAYS.has(e.event) && !modes.has(modeOf(e.event))) continue;
    yield shared ? sseEvent(e) : { event: e.event, id: e.id, data: wireData(e) };
  }
}

export function streamHandlers(
  runsFor: (ctx: RequestContext) => RunService,
): Pick<AgentServerAreaHandlers, 'streamRun' | 'joinRunStream' | 'streamStatelessRun' | 'joinStatelessRunStream' | 'joinThreadStream'> {
  return {
    async streamRun({ path, body }, ctx) {
      const runs = runsFor(ctx);
      const outcome = await runs.create(path.thread_id, body);
      if (!outcome.ok) return failed(outcome.failure);
      const { run_id: runId } = outcome.value;
      if (body.on_disconnect === 'cancel') {
        ctx.signal.addEventListener('abort', () => void runs.cancel(path.thread_id, runId), { once: true });
      }
      return {
        status: 200,
        // Location lets the SDK reconnect with Last-Event-ID after a network failure
        headers: { ...runLocation(path.thread_id, runId), Location: `/threads/${path.thread_id}/runs/${runId}/stream` },
        stream: toSse(runs.events(runId, { signal: ctx.signal }), null),
      };
    },
    async joinRunStream({ path, query, headers }, ctx) {
      const runs = runsFor(ctx);
      const found = await runs.get(path.thread_id, path.run_id);
      if (!found.ok) return failed(found.failure);
      if (flag(query.cancel_on_disconnect)) {
        ctx.signal.addEventListener('abort', () => void runs.cancel(path.thread_id, path.run_id), { once: true });
      }
      const modes = query.stream_mode?.length ? new Set<string>(query.stream_mode) : null;
      const events = runs.events(path.run_id, { lastEventId: headers['last-event-id'], signal: ctx.signal });
      return { status: 200, stream: toSse(events, modes) };
    },
    async streamStatelessRun({ body }, ctx) {
      const runs = runsFor(ctx);
      const outcome = await runs.createStateless(body);
      if (!outcome.ok) return failed(outcome.failure);
      const run = outcome.value;
      if (body.on_disconnect === 'cancel') {
        ctx.signal.addEventListener('abort', () => void runs.cancel(run.thread_id, run.run_id), { once: true });
      }
      return {
        status: 200,
        headers: { ...statelessRunLocation(run), Location: `/runs/${run.run_id}/stream` },
        stream: toSse(runs.events(run.run_id, { signal: ctx.signal }), null),
      };
    },
    async joinStatelessRunStream({ path, query, headers }, ctx) {
      const runs = runsFor(ctx);
      const found = await runs.streamable(path.run_id);
      if (!found.ok) return failed(found.failure);
      if (flag(query.cancel_on_disconnect)) {
        ctx.signal.addEventListener('abort', () => void runs.cancelMany({ run_ids: [path.run_id] }), { once: true });
      }
      const modes = query.stream_mode?.length ? new Set<string>(query.stream_mode) : null;
      const events = runs.events(path.run_id, { lastEventId: headers['last-event-id'], signal: ctx.signal });
      return { status: 200, stream: toSse(events, modes) };
    },
    async joinThreadStream({ path, query, headers }, ctx) {
      const runs = runsFor(ctx);
      const modes = query.stream_mode?.length ? query.stream_mode : ['run_modes' as const];
      const outcome = await runs.threadEvents(path.thread_id, { modes, lastEventId: headers['last-event-id'], signal: ctx.signal });
      if (!outcome.ok) return failed(outcome.failure);
      return { status: 200, stream: toSse(outcome.value, null, false) };
    },
  };
}
