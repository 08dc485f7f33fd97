// What the agent server keeps in the store, and how records become API objects.
import type { Interrupt, Run, RunResult, Thread, ThreadStatus } from '../../../generated/agent-server/types.gen.ts';

export interface ThreadRecord {
  thread_id: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
  status: ThreadStatus;
  config: Record<string, unknown>;
  interrupts: Record<string, Interrupt[]>;
}

export interface RunError {
  error: string;
  message: string;
}

export interface RunRecord extends Run {
  metadata: Record<string, unknown>;
  kwargs: Record<string, unknown>;
  /** 1 for the first execution; +1 each time the server restarts it after a crash. */
  attempt: number;
  /** Why the run ended in status `error`. */
  error?: RunError;
}

export const FINAL_STATUSES = new Set(['success', 'error', 'timeout', 'interrupted']);

export function toApiRun(record: RunRecord): Run {
  const { attempt: _attempt, error: _error, ...run } = record;
  return run;
}

export function toApiThread(record: ThreadRecord, values: Record<string, unknown> | null): Thread {
  return { ...record, values };
}

export function errorResult(error: RunError): RunResult {
  return { __error__: { error: error.error, message: error.message } };
}

/** The error class and text of something a graph threw. */
export function describeError(err: unknown): RunError {
  if (err instanceof Error) return { error: err.name && err.name !== 'Error' ? err.name : err.constructor?.name || 'Error', message: err.message };
  return { error: 'Error', message: typeof err === 'string' ? err : JSON.stringify(err) ?? String(err) };
}
