// A put whose value reaches the embedded store as its JSON text alone, with the fields the store
// keeps of it in memory: a run worker's checkpoint writes (issues 86 and 87). The worker has the
// value and its text already; the main thread, the journal's one writer and the loop every
// request waits on, then writes the text into its journal line, indexes the record by those
// fields and leaves the value on disk, where a reader finds it. Cloning the value across
// threads, freezing it, weighing it and caching it cost that thread more than the rest of the
// write, and the values it held kept its collector busy.
import type { WriteOp } from '../../domain/ports/store.ts';
import { nestsDeeper, STORE_MAX_DEPTH } from './nestingDepth.ts';

export interface TextPut {
  collection: string;
  id: string;
  /** The value's `JSON.stringify` text. */
  json: string;
  /** The value's fields the store keeps in memory (its `paged` list for the collection), in that order. */
  kept: readonly unknown[];
}

/** Per collection, the fields the store keeps of a record in memory, in order: the collections it takes TextPuts of. */
export type TextPutCollections = Readonly<Record<string, readonly string[]>>;

/** The collections a store takes TextPuts of, its write that takes them, and its threads' checkpoint marks (JournalStore.checkpointMark). */
export interface TextPutWrites {
  collections: TextPutCollections;
  /** Resolves with `thread`'s checkpoint mark as the write left it. */
  write(ops: (WriteOp | TextPut)[], thread?: string): Promise<number | undefined>;
  mark(thread: string): number | undefined;
}

export const isTextPut = (op: WriteOp | TextPut): op is TextPut => 'kept' in op;

/**
 * The put as a TextPut when its collection is one of `collections` and its value can be one:
 * text given, and nested no deeper than the store takes (a value that cannot goes as it is,
 * for the store to refuse it naming the record, as it refuses any other).
 */
export function asTextPut(op: WriteOp, collections: TextPutCollections): WriteOp | TextPut {
  if (!('value' in op) || op.json === undefined) return op;
  const fields = collections[op.collection];
  if (!fields) return op;
  // a text shorter than two characters a level holds no value nested too deep (journalStore.ts serialise)
  if (op.json.length > 2 * STORE_MAX_DEPTH && nestsDeeper(op.value, STORE_MAX_DEPTH)) return op;
  const value = op.value as Record<string, unknown>;
  const kept = fields.map((field) => value[field]);
  // a kept field that is not a string or a number (none of the checkpoints' is) goes the ordinary way
  if (kept.some((key) => key !== undefined && key !== null && typeof key !== 'string' && typeof key !== 'number')) return op;
  return { collection: op.collection, id: op.id, json: op.json, kept };
}

/** A TextPut as the put it stands for, its value parsed from its text (a store that does not take TextPuts: a warm-up's). */
export function asPut(op: WriteOp | TextPut): WriteOp {
  return isTextPut(op) ? { collection: op.collection, id: op.id, value: JSON.parse(op.json) as object, json: op.json } : op;
}
