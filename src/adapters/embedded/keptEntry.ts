// An entry of the embedded store's records in memory (collectionState.ts), as whole objects or
// read from packed rows (packedRecords.ts).
import type { Location } from './pagedValues.ts';

/**
 * A record as the store keeps it: with its place in the collection's order (-1 until placed).
 * A record of a paged collection has no value here once it is on disk: its `file` (0: none),
 * `at` and `len` say where it is, held on the entry rather than in an object of their own
 * (~50 bytes a record, issue 91); `keys` holds the fields its collection keeps
 * (pagedCollections.ts), in their order.
 */
export interface Kept extends Partial<Location> {
  seq: number;
  value: object | undefined;
  slot: number;
  keys?: unknown[];
  /** The version's number in a packed collection (packedRecords.ts), by which the value cache knows it. */
  version?: number;
  /** One kept field read without the others (`at`: its place among them), when the entry is read from a packed row. */
  keyAt?(at: number): unknown;
}
