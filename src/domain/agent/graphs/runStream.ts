// Turns what a graph produces into the run's stream events, by stream mode, with the event
// names and data shapes of the upstream agent server:
//   values | updates | custom | tools | tasks | checkpoints | debug — one event per chunk,
//     named after the mode (`<mode>|<namespace>` for a subgraph when subgraphs are streamed);
//   checkpoints, unasked — with subgraphs streamed and values (or the old messages mode)
//     asked for, LangGraph puts a lightweight checkpoint envelope (`{id, parent_id?, step,
//     source}`) before each `values` chunk; upstream sends it as a `checkpoints` event when the
//     run did not ask for that mode (when it did, the full checkpoints go out instead);
//   messages-tuple — `messages`: [message, metadata], chunks typed as their messages (`ai`);
//   messages — as the upstream JS server: `messages/metadata` once per streamed message id and
//     `messages/partial` with the message accumulated so far for each token (never namespaced);
//     `messages/complete` with the messages new in each root `values` chunk, sent right after
//     that `values` (so the input's messages too, and a node's whole messages);
//   events — LangChain stream-events v2, one `events` event each.
// Graph runners call it; it only publishes what the run asked for.
import { serialiseValues, toMessageDict } from '../messages/messages.ts';
import { plainValuesJson, valuesJson } from '../messages/wireJson.ts';
import { JsonText } from '../../../shared/jsonText.ts';
import { isCheckpointEnvelope } from '@langchain/langgraph/stream';
import { joinedText } from '../../../shared/joinedText.ts';

export type Publish = (event: string, data: unknown) => void;

/** The stream modes of LangGraph.js itself (`graph.stream({streamMode})`). */
const LIBRARY_MODES = ['values', 'updates', 'custom', 'debug', 'tasks', 'checkpoints', 'tools'] as const;

export class RunStream {
  /** The streamed messages of the `messages` mode, accumulated by id. */
  private readonly accumulated = new Map<string, { concat(other: unknown): unknown }>();
  /** Ids of the messages `messages/complete` has sent. */
  private readonly completed = new Set<string>();
  /** The last root `values` chunk published, as the graph gave it and as it went on the wire. */
  private lastValues?: { raw: Record<string, unknown>; wire: unknown };

  constructor(
    readonly modes: ReadonlySet<string>,
    private readonly publish: Publish,
    /**
     * Whether subgraph chunks are streamed. The upstream JS server then never completes
     * messages (it reads the namespaced chunk as if it were not): done the same here, so a
     * client sees the same stream from either server.
     */
    private readonly subgraphs = false,
    /**
     * Whether the run's checkpoints outlive it. Upstream runs a temporary run (stateless,
     * its thread deleted when it ends) without a checkpointer, so its stream reports no
     * checkpoint (`checkpoints`, debug `checkpoint`): neither does this one, whose pointers
     * would name a thread about to be gone.
     */
    private readonly keepsCheckpoints = true,
    /**
     * Whether `values` go out as their JSON text (a run worker posts events as text): written
     * straight from the state, without the serialised copy in between.
     */
    private readonly valuesAsText = false,
  ) {}

  has(mode: string): boolean {
    return this.modes.has(mode);
  }

  /** The modes to ask LangGraph.js for: the requested ones, plus what `messages` needs. */
  libraryModes(): string[] {
    const modes = new Set<string>(LIBRARY_MODES.filter((m) => this.modes.has(m)));
    if (this.modes.has('messages') || this.modes.has('messages-tuple')) modes.add('messages');
    // the old `messages` mode completes messages from the state after each step
    if (this.modes.has('messages')) modes.add('values');
    return [...modes];
  }

  /**
   * One chunk of `graph.stream` (or of the root `on_chain_stream` event). `interim`: a root
   * `values` chunk that is not the state the run ends on (the plain runner's input state), so
   * nothing reuses it as an object: it goes out as its JSON text (valuesText), no copy made.
   */
  chunk(namespace: string[], mode: string, data: unknown, interim = false): void {
    const suffix = namespace.length ? `|${joinedText(namespace, '|')}` : '';
    if (mode === 'messages') {
      const [message, metadata] = data as [unknown, Record<string, unknown>];
      this.message(message, metadata ?? {}, suffix);
      return;
    }
    if (mode === 'checkpoints' && isCheckpointEnvelope(data)) {
      if (!this.modes.has('checkpoints')) this.publish(`checkpoints${suffix}`, serialiseValues(data));
      return;
    }
    const isCheckpoint = mode === 'checkpoints' || (mode === 'debug' && (data as { type?: unknown } | null)?.type === 'checkpoint');
    if (this.modes.has(mode) && (this.keepsCheckpoints || !isCheckpoint)) {
      const root = mode === 'values' && namespace.length === 0;
      const wire = (mode === 'values' && this.valuesAsText) || (root && interim) ? valuesText(data) : shape(mode, data);
      if (root && !interim && data && typeof data === 'object') this.lastValues = { raw: data as Record<string, unknown>, wire };
      this.publish(`${mode}${suffix}`, wire);
    }
    if (this.modes.has('messages') && !this.subgraphs && namespace.length === 0) this.completeFrom(data);
  }

  /**
   * `values` on the wire: as the last root `values` chunk went when `values` holds the very
   * same objects under the same keys (the state at the end of a run, read right after its
   * last step), else made afresh: as JSON text where values go as text (a run worker's: a
   * protocol run streams no `values` of its own, and its end state, posted as data, was cloned
   * object by object, copied and serialised again on the main thread: issue 87), else as data.
   */
  wireValues(values: Record<string, unknown>): unknown {
    const last = this.lastValues;
    if (last) {
      const keys = Object.keys(values);
      if (keys.length === Object.keys(last.raw).length && keys.every((k) => Object.hasOwn(last.raw, k) && last.raw[k] === values[k])) return last.wire;
    }
    return this.valuesAsText ? valuesText(values) : serialiseValues(values);
  }

  /** A message a node produced (whole) or a model streamed (a chunk), with its metadata. */
  message(raw: unknown, metadata: Record<string, unknown>, suffix = ''): void {
    const isChunk = isMessageChunk(raw);
    const dict = toMessageDict(raw, 'ai');
    const meta = serialiseValues(metadata) as Record<string, unknown>;
    if (this.modes.has('messages-tuple')) this.publish(`messages${suffix}`, [dict, meta]);
    // whole messages reach the `messages` mode through the state (completeFrom)
    if (!this.modes.has('messages') || !isChunk || !dict.id) return;
    const soFar = this.accumulated.get(dict.id);
    if (!soFar) {
      this.accumulated.set(dict.id, raw);
      this.publish('messages/metadata', { [dict.id]: { metadata: meta } });
    } else {
      this.accumulated.set(dict.id, soFar.concat(raw) as { concat(other: unknown): unknown });
    }
    this.publish('messages/partial', [toMessageDict(this.accumulated.get(dict.id), 'ai')]);
  }

  /** A stream-events v2 event (mode `events`). */
  event(event: unknown): void {
    if (this.modes.has('events')) this.publish('events', serialiseValues(event));
  }

  /** `messages/complete` with the messages of a root chunk's `messages` not sent before. */
  private completeFrom(data: unknown): void {
    if (!data || typeof data !== 'object' || !('messages' in data) || isMessage(data)) return;
    const messages = (data as { messages?: unknown }).messages;
    const fresh: unknown[] = [];
    for (const message of Array.isArray(messages) ? messages : [messages]) {
      const dict = toMessageDict(message, 'ai');
      if (!dict.id || this.completed.has(dict.id)) continue;
      this.completed.add(dict.id);
      fresh.push(dict);
    }
    if (fresh.length) this.publish('messages/complete', fresh);
  }
}

function isMessage(value: object): boolean {
  return typeof (value as { _getType?: unknown })._getType === 'function' || ('type' in value && 'content' in value);
}

function isMessageChunk(value: unknown): value is { concat(other: unknown): unknown } {
  return (
    !!value &&
    typeof value === 'object' &&
    typeof (value as { concat?: unknown }).concat === 'function' &&
    typeof (value as { _getType?: unknown })._getType === 'function'
  );
}

/**
 * `values` data as its JSON text: plain data all through (the plain runner's state) by the native
 * stringify after a read-only check (plainValuesJson: about half of valuesJson's cost, issue 87),
 * anything else (LangChain messages) by valuesJson, each message as its memo's text. What JSON
 * cannot write (a cycle, a BigInt) goes as serialised data, for the publisher to deal with as before.
 */
function valuesText(data: unknown): unknown {
  try {
    const text = plainValuesJson(data) ?? valuesJson(data);
    if (text !== undefined) return new JsonText(text);
  } catch {
    // serialised below: the publisher clones it or writes what JSON can make of it
  }
  return serialiseValues(data);
}

/** Data of one library chunk on the wire, in the upstream server's shape. */
function shape(mode: string, data: unknown): unknown {
  if (mode === 'checkpoints') return checkpointOnWire(data as Record<string, unknown>);
  if (mode === 'tasks') return taskOnWire(data as Record<string, unknown>);
  if (mode === 'debug') {
    const chunk = data as { type: string; payload: Record<string, unknown> };
    const payload = chunk.type === 'checkpoint' ? checkpointOnWire(chunk.payload) : taskOnWire(chunk.payload);
    return { ...(serialiseValues(chunk) as Record<string, unknown>), payload };
  }
  if (mode === 'tools') return toolEventOnWire(data as Record<string, unknown>);
  return serialiseValues(data);
}

/**
 * A checkpoint as the upstream server streams a debug checkpoint: config without callbacks or
 * internal keys, `parent_config` (left out for a checkpoint without a parent, as upstream's
 * JSON drops its undefined), and the pointers clients read (`checkpoint`, `parent_checkpoint`).
 */
export function checkpointOnWire(checkpoint: Record<string, unknown>): Record<string, unknown> {
  const { config, parentConfig, parent_config, tasks, ...rest } = checkpoint as Record<string, any>;
  const parent = parentConfig ?? parent_config;
  return {
    ...(serialiseValues(rest) as Record<string, unknown>),
    config: publicConfig(config),
    ...(parent ? { parent_config: publicConfig(parent) } : {}),
    tasks: Array.isArray(tasks) ? tasks.map((t: Record<string, unknown>) => taskOnWire(t)) : [],
    checkpoint: checkpointPointer(config, true),
    parent_checkpoint: checkpointPointer(parent, true),
  };
}

const PUBLIC_CONFIG_KEYS = ['tags', 'metadata', 'recursion_limit'];

function publicConfig(config: Record<string, any> | undefined | null): Record<string, unknown> | null {
  if (!config) return null;
  const configurable = Object.fromEntries(Object.entries(config.configurable ?? {}).filter(([key]) => !key.startsWith('__')));
  const kept = Object.fromEntries(PUBLIC_CONFIG_KEYS.filter((key) => config[key] !== undefined).map((key) => [key, config[key]]));
  return serialiseValues({ ...kept, configurable }) as Record<string, unknown>;
}

/**
 * Where a checkpoint (or, for a task, the subgraph state it runs in) is: what clients pass
 * back to read or edit that state. A task's state may not have a checkpoint id yet.
 */
function checkpointPointer(config: Record<string, any> | undefined | null, needsId: boolean): Record<string, unknown> | null {
  const c = config?.configurable;
  if (!c || typeof c.thread_id !== 'string' || (needsId && typeof c.checkpoint_id !== 'string')) return null;
  return { thread_id: c.thread_id, checkpoint_id: c.checkpoint_id ?? null, checkpoint_ns: c.checkpoint_ns || '', checkpoint_map: c.checkpoint_map ?? null };
}

/** A task: its result is the node's output object; a subgraph's state is named by `checkpoint`. */
function taskOnWire(task: Record<string, unknown>): Record<string, unknown> {
  const { state, ...rest } = task as Record<string, any>;
  const out = serialiseValues(rest) as Record<string, unknown>;
  if (out.error instanceof Error || (task.error && typeof task.error === 'object')) out.error = errorOnWire(task.error);
  const pointer = checkpointPointer(state?.configurable ? state : null, false);
  if (pointer) out.checkpoint = pointer;
  else if (state) out.state = serialiseValues(state);
  return out;
}

function toolEventOnWire(event: Record<string, unknown>): Record<string, unknown> {
  const out = serialiseValues(event) as Record<string, unknown>;
  if (event.error !== undefined) out.error = errorOnWire(event.error);
  return out;
}

function errorOnWire(error: unknown): unknown {
  if (error instanceof Error) return { error: error.name, message: error.message };
  return serialiseValues(error);
}
