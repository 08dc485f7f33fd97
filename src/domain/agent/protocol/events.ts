// The thread-centric streaming protocol ("protocol v2", sendProtocolCommand and streamThreadEvents in spec/agent-server.openapi.yaml):
// what a protocol run keeps in its event log, what a subscriber receives, and which events a
// subscription's filter lets through. A protocol run's log holds, in order, its `metadata`
// (the run's start, with the thread's sequence number before it), one `protocol` event per
// protocol event, and `end`; the event at position n of the log is the thread's event number
// base + 1 + n, so any replica numbers it alike and a reader resumes from any number.
import { inferChannel, isPrefixMatch } from '@langchain/langgraph/stream';
import type { Event } from '../../../../generated/protocol/types.gen.ts';
import type { JsonText } from '../../../shared/jsonText.ts';

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

/** A protocol event as a subscriber receives it (the Event schema of spec/protocol.openrpc.json), numbered. */
export type ProtocolEvent = Event & { event_id: string; seq: number };

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

// A stored or framed event's `params` is an accessor, read (and so parsed) only when asked for,
// own and enumerable as the data's would be (JSON.stringify, a copy, a comparison see it). One
// getter for all, reading the event's source from a hidden field: a getter made per object (a
// closure) gives each its own accessor, and V8 then holds the object as a dictionary, ~0.55 KB
// of heap (issue 87: a stored and a framed event per protocol event, kept for their log's life,
// ~1.5 KB an event copied by the main thread's scavenges under the subscribers).
const ENTRY = Symbol('log entry');
const STORED = Symbol('stored event');

interface EntryBacked {
  [ENTRY]: JsonText;
}
interface StoredBacked {
  [STORED]: StoredProtocolEvent;
}

function paramsOfEntry(this: EntryBacked): ProtocolParams {
  return (this[ENTRY].value as StoredProtocolEvent).params;
}

function paramsOfStored(this: StoredBacked): ProtocolParams {
  return this[STORED].params;
}

// A log entry is one object however many read it (the log keeps it; its JSON text is parsed
// once): the event made of it, and that event's JSON, are made once too, not once per
// subscriber (issue 57: with hundreds on a thread, their copies and serialisations were most
// of the server's time, and its garbage).
const framedOf = new WeakMap<StoredProtocolEvent, ProtocolEvent>();
const jsonOfEvent = new WeakMap<ProtocolEvent, string>();
/**
 * The log entry a stored event was read from (its JSON text, as a run worker wrote it): the
 * entry, not its text, so that a packed entry's text is off V8's heap (JsonText.pack). Held by
 * the stored event itself (its hidden ENTRY, above), but for an entry whose parse is the event.
 */
const parsedWireOf = new WeakMap<StoredProtocolEvent, JsonText>();
const wireOf = (stored: StoredProtocolEvent): JsonText | undefined => (stored as Partial<EntryBacked>)[ENTRY] ?? parsedWireOf.get(stored);
const wireOfEvent = (event: ProtocolEvent): JsonText | undefined => wireOf((event as unknown as StoredBacked)[STORED]);

const storedOfEntry = new WeakMap<JsonText, StoredProtocolEvent>();
const METHOD_FIRST = '{"method":"';

/**
 * The stored event of a log entry's JSON text (a run worker's), one per entry whoever reads
 * it, its entry kept with it (eventJson is made of its text). The text is not parsed for it: a
 * subscriber's filter needs the event's method alone unless it names namespaces (or the event
 * is `custom`), and the text is what is sent, so its params — a `values` event's every message
 * — are parsed only when something reads them (issue 67: the main thread parsed every event
 * of every run under fan-out).
 */
export function storedOfText(entry: JsonText): StoredProtocolEvent {
  let stored = storedOfEntry.get(entry);
  if (stored) return stored;
  const { text } = entry;
  const end = text.startsWith(METHOD_FIRST) ? text.indexOf('"', METHOD_FIRST.length) : -1;
  const method = end < 0 ? undefined : ownMethod(text.slice(METHOD_FIRST.length, end));
  if (method === undefined || method.includes('\\')) {
    // not the worker's shape (or an escaped method): its parse is the event
    stored = entry.value as StoredProtocolEvent;
    if (end >= 0) parsedWireOf.set(stored, entry);
  } else {
    stored = Object.defineProperty(Object.defineProperty({ method } as StoredProtocolEvent, ENTRY, { value: entry }), 'params', {
      enumerable: true,
      get: paramsOfEntry,
    });
  }
  storedOfEntry.set(entry, stored);
  return stored;
}

/**
 * A method name cut from an entry's text, as a string of its own: V8 makes a cut of 13
 * characters or more (`input.requested`) a view that keeps the whole text alive, and the stored
 * event lives as long as its log, which holds the text as bytes (JsonText.pack).
 */
function ownMethod(cut: string): string {
  return cut.length < 13 || cut.includes('\\') ? cut : (JSON.parse(`"${cut}"`) as string);
}

export function framed(stored: StoredProtocolEvent, seq: number): ProtocolEvent {
  const made = framedOf.get(stored);
  if (made?.seq === seq) return made;
  // the log holds what the run's source made of the graph's events: one of the contract's
  // events; its params are the stored event's, read (and so parsed) only when asked for
  const event = Object.defineProperty(
    Object.defineProperty({ type: 'event', event_id: String(seq), seq, method: stored.method } as ProtocolEvent, STORED, { value: stored }),
    'params',
    { enumerable: true, get: paramsOfStored },
  );
  framedOf.set(stored, event);
  return event;
}

/**
 * The event's JSON text. An event read from a log entry's text (`{"method":…,"params":…}`, a
 * run worker's) is that text with the event's numbers put before it: a `values` event, the
 * thread's every message, is not serialised again. That one is made at each call and not kept:
 * a concatenation holding the entry's text, copied only when a writer flattens it (its bytes,
 * made once per event for every subscriber: sse.ts, protocolSocket.ts), and that copy is the
 * writer's garbage (issue 87: kept, it was a second whole copy of every event sent, held for
 * its log's life and so copied by the main thread's scavenges; ~11 KB a run under 1,000
 * subscribers). An event made here (no text to start from) is serialised once, and kept.
 */
export function eventJson(event: ProtocolEvent): string {
  const wire = wireOfEvent(event);
  if (wire !== undefined) return `${numbersOf(event)}${wire.text.slice(1)}`;
  let text = jsonOfEvent.get(event);
  if (text === undefined) jsonOfEvent.set(event, (text = JSON.stringify(event)));
  return text;
}

/**
 * eventJson(event) as UTF-8 bytes, in two pieces — the event's numbers, and its log entry's
 * text after its `{` — when the entry holds its text as bytes (JsonText.utf8); undefined for an
 * event made here. The writers copy them into the bytes they send (issue 87: the text decoded,
 * numbered and encoded again, then kept as each writer's frame for the log's life).
 */
export function eventJsonBytes(event: ProtocolEvent): [Buffer, Buffer] | undefined {
  const bytes = wireOfEvent(event)?.utf8;
  return bytes === undefined ? undefined : [Buffer.from(numbersOf(event), 'latin1'), bytes.subarray(1)];
}

/** The length of eventJson(event), without reading a log entry's text (which may be packed). */
export function eventJsonLength(event: ProtocolEvent): number {
  const wire = wireOfEvent(event);
  return wire === undefined ? eventJson(event).length : numbersOf(event).length + wire.length - 1;
}

const numbersOf = (event: ProtocolEvent) => `{"type":"event","event_id":"${event.seq}","seq":${event.seq},`;
