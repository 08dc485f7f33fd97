// Assistants are configuration profiles: a run executes with its assistant's `config` and
// `context` under the request's (the request wins, key by key; `configurable` merged one
// level deeper), as the upstream servers merge them when a run is created. Every way of
// starting a run (thread, stateless, wait, stream, batch, crons, A2A, MCP) goes through
// enqueueRun (runWrites.ts), which applies this once; what is merged is stored on the run, so a
// run executes with the profile as it was when the run was made.
import type { Assistant } from '../../../../generated/agent-server/types.gen.ts';
import { copyWith } from '../../copyWith.ts';

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

/** Who asked for a run: upstream stamps the caller on the run's configurable. */
export interface RunCaller {
  /** The project's custom auth's user; absent without custom auth. */
  user?: { identity: string; permissions: string[] };
  /** The request's headers, lower-case names. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/** Credentials, and agentplane's own headers between its parts: never a run's. */
const PRIVATE_HEADER = /^x-(api-key|tenant-id|service-key|agentplane-.*)$/;

/**
 * What upstream adds to a run's configurable from its request: the caller's `x-*` headers and
 * user-agent (graphs read e.g. their own headers there), and with custom auth the user
 * (`langgraph_auth_user`, `langgraph_auth_user_id`, `langgraph_auth_permissions`).
 */
export function callerConfigurable(caller: RunCaller | undefined): Json {
  const out: Json = {};
  for (const [name, value] of Object.entries(caller?.headers ?? {})) {
    if (value === undefined || (!name.startsWith('x-') && name !== 'user-agent') || PRIVATE_HEADER.test(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const user = caller?.user;
  if (user) Object.assign(out, { langgraph_auth_user: user, langgraph_auth_user_id: user.identity, langgraph_auth_permissions: user.permissions });
  return out;
}

const userId = (id: unknown) => (id === undefined ? {} : { user_id: id });

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
  caller?: RunCaller,
): MergedRunConfig & { metadata: Json } {
  const fromAssistant = objectOr(assistant.config);
  const fromThread = objectOr(thread?.config);
  // the caller's keys override the request's own, as upstream stamps them on the request's config
  const fromRequest = copyWith(objectOr(request.config), {
    configurable: copyWith(objectOr(objectOr(request.config).configurable), callerConfigurable(caller)),
  });
  const configurable = copyWith(copyWith(objectOr(fromAssistant.configurable), objectOr(fromThread.configurable)), fromRequest.configurable);
  const metadata = copyWith(copyWith(objectOr(assistant.metadata), objectOr(thread?.metadata)), objectOr(request.metadata));
  // a context that is not an object (a string, a number) is taken whole, as upstream does
  const assistantContext = assistant.context as unknown;
  const context =
    assistantContext !== null && assistantContext !== undefined && typeof assistantContext !== 'object'
      ? assistantContext
      : copyWith(objectOr(assistantContext), objectOr(request.context));
  return {
    // user_id: the configured one, else the authenticated user's (upstream's precedence)
    config: copyWith(copyWith(fromAssistant, fromRequest), {
      configurable: copyWith(copyWith(configurable, ids), userId(configurable.user_id ?? caller?.user?.identity)),
      metadata,
    }),
    context,
    threadConfig: copyWith(copyWith(copyWith(fromAssistant, fromThread), fromRequest), { configurable }),
    metadata,
  };
}
