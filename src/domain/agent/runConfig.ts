// Assistants are configuration profiles: a run executes with its assistant's `config` and
// `context` under the request's (the request wins, key by key; `configurable` merged one
// level deeper), as the upstream servers merge them when a run is created. Every way of
// starting a run (thread, stateless, wait, stream, batch, crons, A2A, MCP) goes through
// RunLifecycle.enqueue, which applies this once; what is merged is stored on the run, so a
// run executes with the profile as it was when the run was made.
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';

type Json = Record<string, unknown>;

const objectOr = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});

/** What a run executes with, besides its input. */
export interface MergedRunConfig {
  /** The run's config: `configurable` carries the run's ids too, as graphs read them there. */
  config: Json;
  context: unknown;
  /** The thread's config after this run (assistant → thread → request), as upstream keeps it. */
  threadConfig: Json;
}

export interface RunIds {
  run_id: string;
  thread_id: string;
  graph_id: string;
  assistant_id: string;
}

/**
 * Assistant → thread → request for `config` (the thread's `configurable` from its earlier
 * runs sits between, as upstream's), assistant → request for `context`. `metadata` of the
 * config is the run's merged metadata (assistant, thread, request), which becomes the
 * metadata of every checkpoint the run writes.
 */
export function mergeRunConfig(
  assistant: Pick<Assistant, 'config' | 'context' | 'metadata'>,
  thread: { config?: Json; metadata?: Json } | undefined,
  request: { config?: unknown; context?: unknown; metadata?: unknown },
  ids: RunIds,
): MergedRunConfig & { metadata: Json } {
  const fromAssistant = objectOr(assistant.config);
  const fromThread = objectOr(thread?.config);
  const fromRequest = objectOr(request.config);
  const configurable = { ...objectOr(fromAssistant.configurable), ...objectOr(fromThread.configurable), ...objectOr(fromRequest.configurable) };
  const metadata = { ...objectOr(assistant.metadata), ...objectOr(thread?.metadata), ...objectOr(request.metadata) };
  // a context that is not an object (a string, a number) is taken whole, as upstream does
  const assistantContext = assistant.context as unknown;
  const context = assistantContext !== null && assistantContext !== undefined && typeof assistantContext !== 'object' ? assistantContext : { ...objectOr(assistantContext), ...objectOr(request.context) };
  return {
    config: { ...fromAssistant, ...fromRequest, configurable: { ...configurable, ...ids }, metadata },
    context,
    threadConfig: { ...fromAssistant, ...fromThread, ...fromRequest, configurable },
    metadata,
  };
}
