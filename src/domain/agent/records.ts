// What the agent server keeps in the store, and how records become API objects.
import { nowIso } from '../clock.ts';
import type { TraceSpan } from './tracing/runSpans.ts';
import type { Interrupt, Run, RunCreate, RunResult, Thread, ThreadStatus } from '../../../generated/agent-server/types.gen.ts';

/**
 * Who a record belongs to: the caller's tenant while agent-server auth is on, '' (one space
 * shared by every caller) while it is off. Records stored without one are ''.
 */
export const ownerOf = (record: { owner?: string }): string => record.owner ?? '';

export interface ThreadRecord {
  thread_id: string;
  /** See ownerOf; never part of the API object. */
  owner?: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
  status: ThreadStatus;
  config: Record<string, unknown>;
  interrupts: Record<string, Interrupt[]>;
  /** Expiry: `ttl_minutes` after `updated_at` the retention sweep applies `strategy`. */
  ttl?: ThreadTtlSetting;
  /** The sequence number of the thread's last protocol event of a finished run (protocol/events.ts); never part of the API object. */
  protocol_seq?: number;
  /**
   * The state's values as of the thread's last change (a run's end, a state update, a copy),
   * null before its first run: a thread's record and its search answer these and never
   * compute a state, which a graph's reducers may refuse. Absent on a thread stored before
   * this field (ThreadStateReader.storedValues computes them then).
   */
  values?: Record<string, unknown> | null;
}

/**
 * A new idle thread: created by createThread (with its `ttl` if asked), or by a run on a thread
 * that does not exist. Built as literals, not spread: a spread of a conditional object is a copy
 * made at run time, and POST /threads made two (issue 86). The fields in the same order either way.
 */
export function newThread(threadId: string, metadata: Record<string, unknown>, owner: string, ttl?: ThreadTtlSetting): ThreadRecord {
  const now = nowIso();
  const thread: ThreadRecord = owner
    ? { thread_id: threadId, owner, created_at: now, updated_at: now, metadata, status: 'idle', config: {}, interrupts: {}, values: null }
    : { thread_id: threadId, created_at: now, updated_at: now, metadata, status: 'idle', config: {}, interrupts: {}, values: null };
  if (ttl) thread.ttl = ttl;
  return thread;
}

export interface ThreadTtlSetting {
  strategy: 'delete' | 'keep_latest';
  ttl_minutes: number;
}

export interface RunError {
  error: string;
  message: string;
}

export interface RunRecord extends Run {
  /** Its thread's owner (see ownerOf): a run can be named by its id alone. */
  owner?: string;
  /** The graph the run executes, fixed when it is created (its assistant's graph then). */
  graph_id: string;
  metadata: Record<string, unknown>;
  kwargs: Record<string, unknown>;
  /** 1 for the first execution; +1 each time the server restarts it after a crash. */
  attempt: number;
  /** Why the run ended in status `error` or `timeout`. */
  error?: RunError;
  /** What the run did inside its nodes (tracing/runTracer.ts): read with GET .../trace. */
  trace?: TraceSpan[];
  /** A finished protocol run's events are its thread's numbers base+1 … end (protocol/events.ts). */
  protocol_seq?: { base: number; end: number };
  /** The ids of its input's messages, chosen when it was stored (inputMessageIds.ts): every attempt writes them alike. */
  input_message_ids?: string[];
}

export const FINAL_STATUSES = new Set(['success', 'error', 'timeout', 'interrupted']);

export function toApiRun(record: RunRecord): Run {
  const { attempt: _attempt, error: _error, graph_id: _graph, owner: _owner, trace: _trace, protocol_seq: _seq, input_message_ids: _ids, ...run } = record;
  return run;
}

// Built key by key, never as `{ ...record, values }`: on Node 20's V8 an object made by a spread
// and then given a key of its own gets a hidden class of its own, every time. Each view then
// being of a shape never seen before, the reply serializer's reads of it went megamorphic and
// missed V8's lookup cache on every key (10 runtime calls a POST /threads), and the thousands
// of one-off shapes pushed other code's entries out of that process-wide cache.
export function toApiThread(record: ThreadRecord, values: Record<string, unknown> | null, include: { ttl?: boolean } = {}): Thread {
  const view: Thread = {
    thread_id: record.thread_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
    metadata: record.metadata,
    status: record.status,
    config: record.config,
    interrupts: record.interrupts,
    values,
  };
  const ttl = record.ttl;
  if (include.ttl && ttl) {
    const expiresAt = new Date(Date.parse(record.updated_at) + ttl.ttl_minutes * 60_000).toISOString();
    view.ttl = { strategy: ttl.strategy, ttl_minutes: ttl.ttl_minutes, expires_at: expiresAt };
  }
  return view;
}

export function errorResult(error: RunError): RunResult {
  return { __error__: { error: error.error, message: error.message } };
}

/**
 * The error name and text of something a graph threw: its `name`, as upstream writes it (a
 * subclass that sets none, such as LangChain's OutputParserException, is an "Error" there too).
 */
export function describeError(err: unknown): RunError {
  if (err instanceof Error) return { error: err.name || 'Error', message: err.message };
  return { error: 'Error', message: typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err)) };
}

const KWARG_KEYS = [
  'input',
  'command',
  'config',
  'context',
  'stream_mode',
  'stream_subgraphs',
  'stream_resumable',
  'interrupt_before',
  'interrupt_after',
  'webhook',
  'feedback_keys',
  'checkpoint_id',
  'checkpoint',
  'after_seconds',
  'on_disconnect',
  'durability',
  // a run started by a protocol command (protocol/events.ts): it publishes protocol events
  '__protocol_stream_run',
  // and the assistant its command named, to which the thread is bound
  '__protocol_assistant',
] as const;

export function runKwargs(body: RunCreate): Record<string, unknown> {
  // no stream mode, or an empty list of them (useStream sends [] until a view subscribes), is `values`, as upstream
  const streamMode = Array.isArray(body.stream_mode) && body.stream_mode.length === 0 ? undefined : body.stream_mode;
  const kwargs: Record<string, unknown> = {
    input: body.input ?? null,
    config: body.config ?? {},
    context: body.context ?? {},
    stream_mode: streamMode ?? ['values'],
  };
  for (const key of KWARG_KEYS) if (body[key] !== undefined && !(key in kwargs)) kwargs[key] = body[key];
  return kwargs;
}

export function notBefore(run: RunRecord): number | undefined {
  const after = Number(run.kwargs.after_seconds ?? 0);
  return after > 0 ? Date.parse(run.created_at) + after * 1000 : undefined;
}
