// Small pieces agent-server handlers share: query flags as booleans, and the Content-Location
// of a run.

/** Query flags arrive as `1`/`0` from the JS SDK, `true`/`false` from others. */
export const flag = (value: unknown): boolean => value === true || value === 'true' || value === '1';

export const runLocation = (threadId: string, runId: string) => ({ 'Content-Location': `/threads/${threadId}/runs/${runId}` });

/** A stateless run's Content-Location: its thread's path only when the thread is kept. */
export const statelessRunLocation = (run: { run_id: string; thread_id: string; kwargs: Record<string, unknown> }) => ({
  'Content-Location': run.kwargs.temporary === true ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}`,
});
