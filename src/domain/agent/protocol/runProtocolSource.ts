// What a protocol run publishes: LangGraph's own protocol events (`streamEvents` version
// "v3") made into the events upstream's server sends — interrupts as `input.requested`,
// state messages in the protocol's shape, the root lifecycle left to the run engine (which
// knows how the run ended) — each kept in the run's log as one `protocol` event.
import { serialiseValues } from '../messages/messages.ts';
import { isPlainObject } from '../messages/messageMemo.ts';
import { valuesJson } from '../messages/wireJson.ts';
import { PROTOCOL_LOG_EVENT, type Namespace, type StoredProtocolEvent } from './events.ts';
import { protocolState } from './stateMessages.ts';
import { protocolValuesText } from './protocolValuesText.ts';
import { JsonText } from '../../../shared/jsonText.ts';

type Dict = Record<string, unknown>;
const isDict = (value: unknown): value is Dict => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One event of LangGraph's `streamEvents(…, { version: "v3" })`. */
export interface GraphProtocolEvent {
  method: string;
  params: { namespace: Namespace; node?: string; data: unknown };
}

export class RunProtocolSource {
  /** Interrupts already announced (values and updates both carry them). */
  private readonly announced = new Set<string>();

  constructor(private readonly publish: (event: string, data: unknown) => void) {}

  emit(method: string, namespace: Namespace, data: unknown, node?: string): void {
    const event: StoredProtocolEvent = { method, params: { namespace, timestamp: Date.now(), ...(node !== undefined ? { node } : {}), data } };
    this.publish(PROTOCOL_LOG_EVENT, event);
  }

  /** An event (no node) whose data is given as its JSON text. */
  private emitText(method: 'values' | 'tasks', namespace: Namespace, text: string): void {
    // as emit writes it: the same keys in the same order
    const event = `{"method":"${method}","params":{"namespace":${JSON.stringify(namespace)},"timestamp":${Date.now()},"data":${text}}}`;
    this.publish(PROTOCOL_LOG_EVENT, new JsonText(event));
  }

  /** One event of the graph's stream. */
  take(event: GraphProtocolEvent): void {
    const { method } = event;
    const namespace = event.params.namespace ?? [];
    if (method === 'values') {
      const fast = protocolValuesText(event.params.data);
      if (fast) {
        this.announce(namespace, serialiseValues((event.params.data as Dict).__interrupt__));
        if (fast.keys > 0) this.emitText('values', namespace, fast.text);
        return;
      }
    }
    if (method === 'tasks') {
      // a task's start carries its input, the state: written from the graph's objects (valuesJson)
      const text = taskText(event.params.data);
      if (text !== undefined) return this.emitText('tasks', namespace, text);
    }
    const data = serialiseValues(event.params.data);
    switch (method) {
      case 'lifecycle':
        // the root's lifecycle is the run's (its start and end are known to the engine)
        if (namespace.length > 0) this.emit('lifecycle', namespace, data);
        return;
      case 'messages':
      case 'tools':
      case 'custom':
      case 'checkpoints':
        this.emit(method, namespace, data);
        return;
      case 'tasks':
        this.emit('tasks', namespace, taskWithCheckpoint(data));
        return;
      case 'updates': {
        const update = isDict(data) ? data : {};
        if (update.node === '__interrupt__') this.announce(namespace, update.values);
        else this.emit('updates', namespace, protocolState(update.values), typeof update.node === 'string' ? update.node : undefined);
        return;
      }
      case 'values': {
        this.announce(namespace, isDict(data) ? data.__interrupt__ : undefined);
        const values = protocolState(data);
        if (!isDict(values) || Object.keys(values).length > 0) this.emit('values', namespace, values);
        return;
      }
      case 'debug':
        return;
      default:
        // a stream channel of the graph's own: a named custom event
        this.emit('custom', namespace, { name: method.startsWith('custom:') ? method.slice('custom:'.length) : method, payload: data });
    }
  }

  /** `input.requested` for each interrupt not announced yet. */
  announce(namespace: Namespace, interrupts: unknown): void {
    const list = Array.isArray(interrupts) ? interrupts : isDict(interrupts) && Array.isArray(interrupts.__interrupt__) ? interrupts.__interrupt__ : [];
    for (const entry of list) {
      if (!isDict(entry) || typeof entry.id !== 'string' || this.announced.has(entry.id)) continue;
      this.announced.add(entry.id);
      this.emit('input.requested', namespace, { interrupt_id: entry.id, payload: entry.value });
    }
  }
}

/**
 * wireJson(taskWithCheckpoint(serialiseValues(task))) written from the task as the graph gives
 * it, without copying each message of its input; undefined where that does not apply (a task
 * that is not plain data at its top, its config and its configurable; anything valuesJson cannot
 * write), the caller then taking the long way.
 */
function taskText(task: unknown): string | undefined {
  if (!isPlainData(task)) return undefined;
  if (task.state !== undefined && !(isPlainData(task.state) && (task.state.configurable === undefined || isPlainData(task.state.configurable))))
    return undefined;
  try {
    return valuesJson(taskWithCheckpoint(task));
  } catch {
    return undefined;
  }
}

const isPlainData = (value: unknown): value is Dict => isDict(value) && isPlainObject(value) && !Object.hasOwn(value, '__proto__');

/** A task's runnable config is sent as the checkpoint it names (as upstream does). */
function taskWithCheckpoint(task: unknown): unknown {
  if (!isDict(task) || !isDict(task.state) || !isDict(task.state.configurable)) return task;
  const { state, ...rest } = task;
  const configurable = state.configurable as Dict;
  if (typeof configurable.checkpoint_id !== 'string') return task;
  return {
    ...rest,
    checkpoint: {
      thread_id: configurable.thread_id,
      checkpoint_ns: configurable.checkpoint_ns ?? '',
      checkpoint_id: configurable.checkpoint_id,
      ...(isDict(configurable.checkpoint_map) ? { checkpoint_map: configurable.checkpoint_map } : {}),
    },
  };
}
