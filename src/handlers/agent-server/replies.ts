// Small pieces every agent-server handler uses: domain failures as `{detail}` replies,
// query flags as booleans, and the Content-Location of a run.
import type { AgentFailure } from '../../domain/agent/service.ts';

export function failed(failure: AgentFailure) {
  return { status: failure.status, body: { detail: failure.detail } } as const;
}

export const notFound = (detail: string) => ({ status: 404, body: { detail } }) as const;

/** Query flags arrive as `1`/`0` from the JS SDK, `true`/`false` from others. */
export const flag = (value: unknown): boolean => value === true || value === 'true' || value === '1';

export const runLocation = (threadId: string, runId: string) => ({ 'Content-Location': `/threads/${threadId}/runs/${runId}` });
