// The agent server's domain API, used by its HTTP handlers and by the A2A methods.
// Implemented in this folder (assistants, threads, runs, the run queue and executor).
import type { Assistant, Run, RunCreate, Thread, ThreadState } from '../../../generated/agent-server/types.gen.ts';

/** An expected failure, mapped to HTTP `{detail}` by handlers and to JSON-RPC errors by A2A. */
export interface AgentFailure {
  status: 400 | 404 | 409 | 422;
  detail: string;
}
export type Outcome<T> = { ok: true; value: T } | { ok: false; failure: AgentFailure };

/** One event of a run's stream; `id` is its position in the run's event log (for Last-Event-ID). */
export interface RunEvent {
  id: string;
  event: string; // metadata | values | updates | messages/partial | messages/complete | error | end …
  data: unknown;
}

export interface AgentService {
  /** Accepts an assistant UUID or a registered graph name. */
  resolveAssistant(idOrGraph: string): Promise<Assistant | undefined>;
  /** Whether the assistant's graph keeps a top-level `messages` list in its state. */
  assistantHasMessages(assistant: Assistant): boolean;
  getThread(threadId: string): Promise<Thread | undefined>;
  getThreadState(threadId: string): Promise<ThreadState | undefined>;
  /** Creates (queues) a run; honours multitask_strategy and if_not_exists like POST /threads/{id}/runs. */
  createRun(threadId: string, body: RunCreate): Promise<Outcome<Run>>;
  getRun(threadId: string, runId: string): Promise<Run | undefined>;
  /** Resolves with the run once it is no longer pending or running. */
  waitForRun(threadId: string, runId: string, signal?: AbortSignal): Promise<Run>;
  /** Cancels a pending or running run (status becomes interrupted); rollback also deletes it. */
  cancelRun(threadId: string, runId: string, action?: 'interrupt' | 'rollback'): Promise<Outcome<Run>>;
  /** The run's events from the start (or after lastEventId), live until the run ends. */
  runEvents(runId: string, options?: { lastEventId?: string; signal?: AbortSignal }): AsyncIterable<RunEvent>;
}
