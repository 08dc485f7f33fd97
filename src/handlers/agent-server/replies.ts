// Small pieces agent-server handlers share: query flags as booleans, and the Content-Location
// of a run.

/** Query flags arrive as `1`/`0` from the JS SDK, `true`/`false` from others. */
export const flag = (value: unknown): boolean => value === true || value === 'true' || value === '1';

export const runLocation = (threadId: string, runId: string) => ({ 'Content-Location': `/threads/${threadId}/runs/${runId}` });
