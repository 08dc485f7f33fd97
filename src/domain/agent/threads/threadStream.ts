// A thread's stream (`GET /threads/{id}/stream`): the events of each run on the thread, one
// run after the other in receipt order, for as long as the reader stays. It only reads the
// runs' event logs, like every other stream; event ids are `<run_id>:<n>` so a reader can
// resume across runs.
import type { ThreadStreamMode } from '../../../../generated/agent-server/types.gen.ts';
import type { RunStore } from '../../ports/runStore.ts';
import type { RunEventLog } from '../../ports/runEventLog.ts';
import { FINAL_STATUSES, type RunRecord } from '../records.ts';
import type { RunEvent } from '../runs/runEvent.ts';

export type { ThreadStreamMode };

/** What each thread stream mode lets through of a run's events (`end` arrives as `run_done`). */
const PASSES: Record<ThreadStreamMode, (event: string) => boolean> = {
  run_modes: () => true,
  lifecycle: (event) => event === 'metadata',
  state_update: (event) => event === 'values',
};

function splitEventId(id: string | undefined): { runId: string; eventId: string } | undefined {
  const at = id?.lastIndexOf(':') ?? -1;
  return id && at > 0 ? { runId: id.slice(0, at), eventId: id.slice(at + 1) } : undefined;
}

export async function* threadEvents(
  deps: { runs: Pick<RunStore, 'onThread'>; eventLog: RunEventLog },
  threadId: string,
  options: { modes: ThreadStreamMode[]; lastEventId?: string; signal?: AbortSignal },
): AsyncGenerator<RunEvent> {
  const passes = (event: string) => options.modes.some((mode) => PASSES[mode](event));
  const resume = splitEventId(options.lastEventId);
  // the last run streamed (or skipped); runs after it are streamed whatever their status
  let cursor: string | undefined = resume?.runId;
  let resumeAfter = resume?.eventId;
  let first = resume === undefined;
  const { signal } = options;
  while (!signal?.aborted) {
    // registered before looking, so a run queued meanwhile still wakes us
    const activity = deps.eventLog.nextRunOn(threadId, signal);
    const runs = await deps.runs.onThread(threadId);
    const wanted = (run: RunRecord) => {
      if (resumeAfter !== undefined && run.run_id === cursor) return true;
      if (cursor !== undefined && run.run_id <= cursor) return false;
      // on joining: only the runs still to finish, not the thread's past
      return !first || !FINAL_STATUSES.has(run.status);
    };
    let next: RunRecord | undefined;
    for (const run of runs) {
      if (wanted(run) && (await deps.eventLog.has(run.run_id))) {
        next = run;
        break;
      }
    }
    if (!next) {
      if (first) cursor = runs.at(-1)?.run_id ?? cursor;
      first = false;
      resumeAfter = undefined;
      await activity;
      continue;
    }
    first = false;
    for await (const e of deps.eventLog.join(next.run_id, { lastEventId: next.run_id === cursor ? resumeAfter : undefined, signal })) {
      const id = `${next.run_id}:${e.id}`;
      if (e.event === 'end') {
        if (passes('metadata')) yield { id, event: 'metadata', data: { run_id: next.run_id, status: 'run_done' } };
      } else if (passes(e.event.split('|')[0])) yield { id, event: e.event, data: e.data };
    }
    cursor = next.run_id;
    resumeAfter = undefined;
  }
}
