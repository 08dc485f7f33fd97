// The `value` an auth handler receives for each operation, with the keys the upstream JS
// server passes (keys present even when the request left them out, defaults filled in), so
// handlers written for upstream work unchanged: the documented `on("*")` example stamps
// `value.metadata.owner` only when `"metadata" in value`. What the handler changes goes back
// into the request body before the operation runs (upstream writes its `mutable` value); ids
// the server would mint anyway (a new thread's or assistant's) are minted first, so the
// handler sees them.
// An operation that asks several events (its `x-auth` lists them) has a value per event;
// one whose value needs no body of its own (a copy's new id and metadata) gets a scratch body
// the guard hands to the handler. A value built as `undefined` is an event not asked for this
// request (a thread created without supersteps is not updated).
// Crons follow the Python server (the JS server has none).
import { uuid4, uuid5 } from '../../domain/agent/ids.ts';
import { callerConfigurable, type RunCaller } from '../../domain/agent/runs/runConfig.ts';
import { flag } from './replies.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Fields = Record<string, unknown>;
export interface AuthRequest {
  path: Record<string, string | undefined>;
  query: Record<string, unknown>;
  body: unknown;
  /** Who calls: upstream's run value carries the caller's headers and user in its configurable. */
  caller: RunCaller;
  /** A thread's metadata as this caller may see it; undefined when there is none. */
  threadMetadata(threadId: string): Promise<Record<string, unknown> | undefined>;
}

/** One value for the handler, and how its changes reach the body. */
export interface AuthValue {
  value: Fields;
  /** Copies what the handler changed back into `body`. */
  writeBack(): void;
  /** Whether the filters the handler returns confine the operation (a copy's create does not, as upstream). */
  filters: boolean;
}

/** `[key in value, key in body]` pairs a handler may change. */
type Writable = readonly (readonly [string, string])[];

interface Shape {
  build(request: AuthRequest, body: Fields): Fields | undefined | Promise<Fields | undefined>;
  writable?: Writable;
  /** The handler's filters are not applied (upstream ignores them for this event). */
  ignoresFilters?: true;
}
/** The shapes of an operation that asks several events, by event. */
type PerEvent = Record<string, Shape>;

const same = (...keys: string[]): Writable => keys.map((k) => [k, k] as const);
const pathOnly = (...keys: string[]): Shape => ({ build: ({ path }) => Object.fromEntries(keys.map((k) => [k, path[k]])) });

const threadRead = pathOnly('thread_id');
const assistantRead = pathOnly('assistant_id');

const RUN_KWARGS = ['input', 'command', 'config', 'context', 'stream_mode', 'interrupt_before', 'interrupt_after', 'webhook', 'feedback_keys'] as const;

const runCreate: Shape = {
  build: ({ path, caller }, b) => {
    const strategy = b.multitask_strategy ?? 'enqueue';
    const mode = b.stream_mode;
    return {
      thread_id: path.thread_id,
      // a graph's name stands for its system assistant, whose id upstream passes
      assistant_id: typeof b.assistant_id === 'string' && !UUID.test(b.assistant_id) ? uuid5(b.assistant_id) : b.assistant_id,
      // the run's id is minted when the run is stored, after the handler agreed
      run_id: undefined,
      status: 'pending',
      metadata: b.metadata ?? {},
      prevent_insert_if_inflight: strategy === 'reject',
      multitask_strategy: strategy,
      if_not_exists: b.if_not_exists ?? 'reject',
      after_seconds: b.after_seconds ?? 0,
      kwargs: {
        ...Object.fromEntries(RUN_KWARGS.map((k) => [k, b[k]])),
        config: withCaller(b.config, caller),
        stream_mode: Array.isArray(mode) ? mode : mode ? [mode] : ['values'],
        temporary: path.thread_id === undefined && (b.on_completion ?? 'delete') === 'delete',
        subgraphs: b.stream_subgraphs ?? false,
        resumable: b.stream_resumable ?? false,
      },
    };
  },
  writable: [
    ['metadata', 'metadata'],
    ['kwargs.input', 'input'],
    ['kwargs.command', 'command'],
    ['kwargs.config', 'config'],
    ['kwargs.context', 'context'],
  ],
};

/** The run's config as upstream shows it: the caller's headers and user on its configurable. */
function withCaller(config: unknown, caller: RunCaller): Fields {
  const given = (config ?? {}) as Fields;
  return { ...given, configurable: { ...((given.configurable as Fields | undefined) ?? {}), ...callerConfigurable(caller) } };
}

/** A run creation then read of the run's thread (stream and wait join the run). */
const runThenRead: PerEvent = { 'threads:create_run': runCreate, 'threads:read': threadRead };

const search = (keys: string[], defaultLimit: number, counting = false): Shape => ({
  build: (_request, b) => ({
    ...Object.fromEntries(keys.map((k) => [k, b[k]])),
    limit: counting ? 0 : (b.limit ?? defaultLimit),
    offset: counting ? 0 : (b.offset ?? 0),
  }),
});

const cronCreate: Shape = {
  build: ({ path }, b) => ({ payload: b, schedule: b.schedule, cron_id: undefined, thread_id: path.thread_id, user_id: b.user_id, end_time: b.end_time }),
};

/** Only with supersteps does creating a thread also update it, and read it (upstream's bulk update). */
const whenSupersteps: Shape = {
  build: (_request, b) => (Array.isArray(b.supersteps) && b.supersteps.length ? { thread_id: b.thread_id } : undefined),
};

/** The copy's value: its new id (minted now, so the handler sees it) and the source's metadata naming it. */
const copyCreate: Shape = {
  build: async ({ path, threadMetadata }, b) => {
    const source = path.thread_id === undefined ? undefined : await threadMetadata(path.thread_id);
    if (!source) return undefined;
    const threadId = (b.thread_id ??= uuid4()) as string;
    return { thread_id: threadId, metadata: { ...source, thread_id: threadId } };
  },
  writable: same('metadata'),
  ignoresFilters: true,
};

const SHAPES: Record<string, Shape | PerEvent> = {
  createAssistant: {
    build: (_request, b) => ({
      assistant_id: (b.assistant_id ??= uuid4()),
      config: b.config ?? {},
      context: b.context ?? {},
      graph_id: b.graph_id,
      metadata: b.metadata ?? {},
      if_exists: b.if_exists ?? 'raise',
      name: b.name,
      description: b.description,
    }),
    writable: same('config', 'context', 'graph_id', 'metadata', 'name', 'description'),
  },
  getAssistant: assistantRead,
  getAssistantGraph: assistantRead,
  getAssistantRunMetrics: assistantRead,
  getAssistantSchemas: assistantRead,
  getAssistantSubgraphs: assistantRead,
  getAssistantSubgraphsByNamespace: assistantRead,
  listAssistantVersions: assistantRead,
  deleteAssistant: assistantRead,
  patchAssistant: {
    build: ({ path }, b) => ({
      assistant_id: path.assistant_id,
      graph_id: b.graph_id,
      config: b.config,
      metadata: b.metadata,
      name: b.name,
      description: b.description,
    }),
    writable: same('graph_id', 'config', 'metadata', 'name', 'description'),
  },
  setLatestAssistantVersion: { build: ({ path }, b) => ({ assistant_id: path.assistant_id, version: b.version }) },
  searchAssistants: search(['graph_id', 'metadata'], 10),
  countAssistants: search(['graph_id', 'metadata'], 10, true),

  createThread: {
    'threads:create': {
      build: (_request, b) => ({ thread_id: (b.thread_id ??= uuid4()), metadata: b.metadata ?? {}, if_exists: b.if_exists ?? 'raise' }),
      writable: same('metadata'),
    },
    'threads:update': whenSupersteps,
    'threads:read': whenSupersteps,
  },
  getThread: threadRead,
  getThreadState: threadRead,
  getThreadStateAtCheckpoint: threadRead,
  getThreadStateAtCheckpointPost: threadRead,
  getThreadHistory: threadRead,
  searchThreadHistory: threadRead,
  joinThreadStream: threadRead,
  streamThreadEvents: threadRead,
  openThreadEventSocket: threadRead,
  updateThreadState: { 'threads:update': threadRead, 'threads:read': threadRead },
  patchThreadState: threadRead,
  copyThread: { 'threads:read': threadRead, 'threads:create': copyCreate },
  deleteThread: threadRead,
  patchThread: { build: ({ path }, b) => ({ thread_id: path.thread_id, metadata: b.metadata }), writable: same('metadata') },
  searchThreads: search(['metadata', 'ids', 'status', 'values'], 10),
  countThreads: search(['metadata', 'values', 'status'], 10, true),

  createRun: runCreate,
  streamRun: runThenRead,
  waitRun: runThenRead,
  createStatelessRun: runCreate,
  streamStatelessRun: runThenRead,
  waitStatelessRun: runThenRead,
  getRun: threadRead,
  getRunTrace: threadRead,
  joinRun: threadRead,
  joinRunStream: threadRead,
  joinStatelessRunStream: threadRead,
  listRuns: {
    'threads:search': { build: ({ path, query }) => ({ thread_id: path.thread_id, metadata: query.metadata, status: query.status }) },
    'threads:read': threadRead,
  },
  deleteRun: pathOnly('run_id', 'thread_id'),
  cancelRun: {
    'threads:update': {
      build: ({ path, query }) => ({ thread_id: path.thread_id, action: query.action ?? 'interrupt', metadata: { run_ids: [path.run_id], status: 'pending' } }),
    },
    // waiting joins the run, which reads its thread
    'threads:read': { build: ({ path, query }) => (flag(query.wait) ? { thread_id: path.thread_id } : undefined) },
  },
  cancelRuns: {
    build: (_request, b) => ({ thread_id: b.thread_id, action: b.action ?? 'interrupt', metadata: { run_ids: b.run_ids, status: b.status ?? 'pending' } }),
  },

  putStoreItem: { build: (_request, b) => ({ namespace: b.namespace, key: b.key, value: b.value }), writable: same('namespace', 'key', 'value') },
  getStoreItem: {
    build: ({ query }) => ({
      namespace: typeof query.namespace === 'string' && query.namespace ? query.namespace.split('.') : (query.namespace ?? []),
      key: query.key,
    }),
  },
  deleteStoreItem: { build: (_request, b) => ({ namespace: b.namespace, key: b.key }), writable: same('namespace', 'key') },
  searchStoreItems: {
    build: (_request, b) => ({ namespace: b.namespace_prefix, filter: b.filter, limit: b.limit ?? 10, offset: b.offset ?? 0, query: b.query }),
    writable: [
      ['namespace', 'namespace_prefix'],
      ['filter', 'filter'],
      ['query', 'query'],
    ],
  },
  listStoreNamespaces: {
    build: (_request, b) => ({ namespace: b.prefix, suffix: b.suffix, max_depth: b.max_depth, limit: b.limit ?? 100, offset: b.offset ?? 0 }),
    writable: [
      ['namespace', 'prefix'],
      ['suffix', 'suffix'],
    ],
  },

  createCron: cronCreate,
  createThreadCron: cronCreate,
  updateCron: { build: ({ path }, b) => ({ cron_id: path.cron_id, payload: b, schedule: b.schedule }) },
  deleteCron: pathOnly('cron_id'),
  searchCrons: search(['assistant_id', 'thread_id'], 10),
  countCrons: search(['assistant_id', 'thread_id'], 10, true),
};

const at = (value: Fields, dotted: string): unknown => dotted.split('.').reduce<unknown>((v, k) => (v as Fields | undefined)?.[k], value);

/**
 * The values one event of a request asks about: one per run of a batch (upstream asks once
 * per run), none when the event is not asked for this request, one otherwise. Operations
 * without a known shape get the body (or the path and query). `body` is the request's body, or
 * the guard's scratch body for an operation that has none.
 */
export async function authValuesOf(operationId: string, event: string, request: AuthRequest, body: unknown): Promise<AuthValue[]> {
  const entry = SHAPES[operationId];
  const shape = entry && !isShape(entry) ? entry[event] : entry;
  if (operationId === 'createRunBatch')
    return (await Promise.all((body as Fields[]).map((b) => valueOf(runCreate, request, b)))).filter((v) => v !== undefined);
  if (operationId === 'sendProtocolCommand') {
    const value = await protocolCommandValue(request, body as Fields);
    return value ? [value] : [];
  }
  if (!shape) return [{ value: (request.body as Fields | undefined) ?? { ...request.path, ...request.query }, writeBack: () => {}, filters: true }];
  const value = await valueOf(shape, request, body as Fields);
  return value ? [value] : [];
}

const isShape = (entry: Shape | PerEvent): entry is Shape => typeof entry.build === 'function';

/** A protocol command starts runs as `run.start` names them (the thread made when missing): its params are the run's body. */
function protocolCommandValue(request: AuthRequest, command: Fields): Promise<AuthValue | undefined> {
  const params = (typeof command.params === 'object' && command.params !== null ? command.params : (command.params = {})) as Fields;
  const strategy = typeof params.multitaskStrategy === 'string' ? params.multitaskStrategy : 'enqueue';
  const shape: Shape = { ...runCreate, build: (req, b) => runCreate.build(req, { ...b, if_not_exists: 'create', multitask_strategy: strategy }) };
  return valueOf(shape, request, params);
}

async function valueOf(shape: Shape, request: AuthRequest, body: Fields): Promise<AuthValue | undefined> {
  const value = await shape.build(request, body);
  if (!value) return undefined;
  // compared as JSON: a handler may replace a field or change a default it was given in place
  const snapshot = (key: string) => JSON.stringify(at(value, key)) ?? 'undefined';
  const before = new Map((shape.writable ?? []).map(([key]) => [key, snapshot(key)]));
  return {
    value,
    filters: !shape.ignoresFilters,
    writeBack() {
      for (const [key, bodyKey] of shape.writable ?? []) if (snapshot(key) !== before.get(key)) body[bodyKey] = at(value, key);
    },
  };
}
