// The thread-centric streaming protocol ("protocol v2", sendProtocolCommand and streamThreadEvents in spec/agent-server.openapi.yaml):
// what a protocol run keeps in its event log, what a subscriber receives, and which events a
// subscription's filter lets through. A protocol run's log holds, in order, its `metadata`
// (the run's start, with the thread's sequence number before it), one `protocol` event per
// protocol event, and `end`; the event at position n of the log is the thread's event number
// base + 1 + n, so any replica numbers it alike and a reader resumes from any number.
import { inferChannel, isPrefixMatch } from '@langchain/langgraph/stream';

/** The log event a protocol run publishes for each protocol event. */
export const PROTOCOL_LOG_EVENT = 'protocol';

/** The run kwarg marking a run started by a protocol command (upstream's name). */
export const PROTOCOL_RUN_KEY = '__protocol_stream_run';
/** The run kwarg keeping the assistant as the command named it (an id or a graph name): the thread is bound to its first protocol run's. */
export const PROTOCOL_ASSISTANT_KEY = '__protocol_assistant';

export type Namespace = string[];

export interface ProtocolParams {
  namespace: Namespace;
  timestamp: number;
  node?: string;
  data: unknown;
}

/** A protocol event as kept in a run's log (before it has a thread sequence number). */
export interface StoredProtocolEvent {
  method: string;
  params: ProtocolParams;
}

/** A protocol event as a subscriber receives it. */
export interface ProtocolEvent extends StoredProtocolEvent {
  type: 'event';
  event_id: string;
  seq: number;
}

export interface EventFilter {
  channels: ReadonlySet<string>;
  namespaces?: Namespace[];
  depth?: number;
  since?: number;
}

/** Whether the filter lets the event through (upstream's rule: channel, then namespace prefix within `depth`). */
export function matchesFilter(filter: EventFilter, event: ProtocolEvent): boolean {
  if (filter.since !== undefined && event.seq <= filter.since) return false;
  const channel = inferChannel(event as never);
  if (channel === undefined) return false;
  // a named custom channel (custom:<name>) is also part of plain `custom`
  if (!filter.channels.has(channel) && !(channel.startsWith('custom:') && filter.channels.has('custom'))) return false;
  if (!filter.namespaces?.length) return true;
  return filter.namespaces.some(
    (prefix) => isPrefixMatch(event.params.namespace, prefix) && (filter.depth === undefined || event.params.namespace.length - prefix.length <= filter.depth),
  );
}

export function framed(stored: StoredProtocolEvent, seq: number): ProtocolEvent {
  return { type: 'event', event_id: String(seq), seq, method: stored.method, params: stored.params };
}
