// One object of the shape of Node's tick objects, held for the life of the process.
//
// Every `process.nextTick` (Node's streams and HTTP call it ~9 times a GET: endReadable, resume,
// onwrite, emitReadable, …) makes its tick as an object literal whose first keys are computed:
// `{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`. V8 defines such keys
// one at a time and records, at each key, the hidden class (map) the object had before it,
// weakly; TurboFan builds the object inline only while each record holds one map. A full
// collection that finds no tick object alive frees the maps past the first (nothing else has
// them once no optimised code keeps them): at the start, before Node's callers of nextTick are
// optimised, a single one does (the start's own, while the server waits for its first request).
// The next tick makes new maps, three of the four records see a second map and turn megamorphic
// for good, and every tick object is built by V8's runtime from then on: 3 calls of ~1,300
// instructions a tick, 27 a GET deployment, 18 a POST /threads, for the life of the process
// (issue 86; scripts/bench/findings.md, h86r30 and h86t32).
//
// An object made by the same literal, with the same two symbols, shares those maps (each map
// holds the one before it), so while it lives they do, and the records stay monomorphic. The
// two symbols are Node's own, read from an AsyncResource, which carries them as own properties.
import { AsyncResource } from 'node:async_hooks';

/** What keeps the maps alive. */
let held: object | undefined;

/** The two symbols Node's tick objects are keyed by, from an async resource's own symbols; undefined where this node has no such pair. */
export function tickSymbols(): { asyncId: symbol; triggerId: symbol } | undefined {
  // Node's AsyncResource keeps its ids under the same two symbols as its ticks (its async_hooks'
  // own); made with no hook enabled, it registers nothing
  const own = Object.getOwnPropertySymbols(new AsyncResource('agentplane.tickShape', { requireManualDestroy: true }));
  const asyncId = own.find((s) => s.description === 'async_id_symbol');
  const triggerId = own.find((s) => s.description === 'trigger_async_id_symbol');
  return asyncId && triggerId ? { asyncId, triggerId } : undefined;
}

/** Holds one object of the tick objects' shape (once per thread: each isolate has its own maps); returns it. */
export function keepTickShape(): object | undefined {
  if (held) return held;
  const symbols = tickSymbols();
  if (!symbols) return undefined;
  // as Node's nextTick writes it (lib/internal/process/task_queues.js): the same keys in the same
  // order, and values of the same kinds, so that no field of the shared maps is generalised
  // (which would leave these maps deprecated and the ticks on new ones): the ids are numbers
  // read from a Float64Array, which V8 stores as doubles (a small integer here would make the
  // fields Smi ones, and the first tick would move every tick to new maps), then a function
  // and undefined
  const id = 0.5;
  const callback = () => {};
  const args = undefined;
  held = { [symbols.asyncId]: id, [symbols.triggerId]: id, callback, args };
  return held;
}
