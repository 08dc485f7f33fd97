// Turns what a graph produces into the run's stream events, by stream mode, with the event
// names and data shapes of the upstream agent server:
//   values | updates | custom | tools | tasks | checkpoints | debug — one event per chunk,
//     named after the mode (`<mode>|<namespace>` for a subgraph when subgraphs are streamed);
//   messages-tuple — `messages`: [message (chunks keep their `AIMessageChunk` type), metadata];
//   messages — `messages/metadata` once per message id, `messages/partial` with the message
//     accumulated so far for each token, `messages/complete` once the message is whole;
//   events — LangChain stream-events v2, one `events` event each.
// Graph runners call it; it only publishes what the run asked for.
import { serialiseValues, toMessageDict } from './messages.ts';

export type Publish = (event: string, data: unknown) => void;

/** The stream modes of LangGraph.js itself (`graph.stream({streamMode})`). */
const LIBRARY_MODES = ['values', 'updates', 'custom', 'debug', 'tasks', 'checkpoints', 'tools'] as const;

const CHUNK_TYPES: Record<string, string> = { ai: 'AIMessageChunk', human: 'HumanMessageChunk', tool: 'ToolMessageChunk', system: 'SystemMessageChunk' };

interface Accumulating {
  message: any;
  complete: boolean;
  /** The namespace suffix of the message's own events. */
  suffix: string;
}

export class RunStream {
  /** The messages of the `messages` mode seen so far, by id. */
  private readonly accumulated = new Map<string, Accumulating>();

  constructor(
    readonly modes: ReadonlySet<string>,
    private readonly publish: Publish,
  ) {}

  has(mode: string): boolean {
    return this.modes.has(mode);
  }

  /** The modes to ask LangGraph.js for: the requested ones, plus what `messages` needs. */
  libraryModes(): string[] {
    const modes = new Set<string>(LIBRARY_MODES.filter((m) => this.modes.has(m)));
    if (this.modes.has('messages') || this.modes.has('messages-tuple')) modes.add('messages');
    // the old `messages` mode completes a streamed message when its node returns it
    if (this.modes.has('messages')) modes.add('updates');
    return [...modes];
  }

  /** One chunk of `graph.stream` (or of the root `on_chain_stream` event). */
  chunk(namespace: string[], mode: string, data: unknown): void {
    const suffix = namespace.length ? `|${namespace.join('|')}` : '';
    if (mode === 'messages') {
      const [message, metadata] = data as [unknown, Record<string, unknown>];
      this.message(message, metadata ?? {}, suffix);
      return;
    }
    if (mode === 'updates' && this.modes.has('messages')) this.completeFromUpdate(data);
    if (!this.modes.has(mode)) return;
    this.publish(`${mode}${suffix}`, shape(mode, data));
  }

  /** A message a node produced (whole) or a model streamed (a chunk), with its metadata. */
  message(raw: unknown, metadata: Record<string, unknown>, suffix = ''): void {
    const isChunk = isMessageChunk(raw);
    const dict = toMessageDict(raw, 'ai');
    const meta = serialiseValues(metadata) as Record<string, unknown>;
    if (this.modes.has('messages-tuple')) {
      this.publish(`messages${suffix}`, [isChunk ? { ...dict, type: CHUNK_TYPES[dict.type] ?? dict.type } : dict, meta]);
    }
    if (!this.modes.has('messages')) return;
    let entry = this.accumulated.get(dict.id);
    if (!entry) {
      this.accumulated.set(dict.id, (entry = { message: raw, complete: false, suffix }));
      this.publish(`messages/metadata${suffix}`, { [dict.id]: { metadata: meta } });
    } else if (isChunk && isMessageChunk(entry.message)) {
      entry.message = entry.message.concat(raw);
    } else {
      entry.message = raw;
    }
    if (isChunk) {
      this.publish(`messages/partial${suffix}`, [toMessageDict(entry.message, 'ai')]);
    } else if (!entry.complete) {
      entry.complete = true;
      this.publish(`messages/complete${suffix}`, [dict]);
    }
  }

  /** A stream-events v2 event (mode `events`). */
  event(event: unknown): void {
    if (this.modes.has('events')) this.publish('events', serialiseValues(event, { chunkTypes: true }));
  }

  /**
   * Streamed messages become complete when the node that streamed them returns them (the
   * update of a subgraph's node arrives under the subgraph's namespace, so match by id).
   */
  private completeFromUpdate(update: unknown): void {
    if (!update || typeof update !== 'object') return;
    for (const nodeUpdate of Object.values(update as Record<string, unknown>)) {
      const messages = (nodeUpdate as { messages?: unknown } | null)?.messages;
      for (const message of Array.isArray(messages) ? messages : messages ? [messages] : []) {
        const dict = toMessageDict(message, 'ai');
        const entry = this.accumulated.get(dict.id);
        if (!entry || entry.complete) continue;
        entry.complete = true;
        this.publish(`messages/complete${entry.suffix}`, [dict]);
      }
    }
  }
}

function isMessageChunk(value: unknown): value is { concat(other: unknown): unknown } {
  return !!value && typeof value === 'object' && typeof (value as { concat?: unknown }).concat === 'function' && typeof (value as { _getType?: unknown })._getType === 'function';
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
 * A checkpoint as the upstream server streams it: config without callbacks or internal keys,
 * `parent_config`, and the pointers clients read (`checkpoint`, `parent_checkpoint`).
 */
export function checkpointOnWire(checkpoint: Record<string, unknown>): Record<string, unknown> {
  const { config, parentConfig, parent_config, tasks, ...rest } = checkpoint as Record<string, any>;
  const parent = parentConfig ?? parent_config;
  return {
    ...(serialiseValues(rest) as Record<string, unknown>),
    config: publicConfig(config),
    parent_config: publicConfig(parent),
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

