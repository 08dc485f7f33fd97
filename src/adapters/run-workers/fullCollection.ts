// A full garbage collection on demand (V8's `gc`, exposed to one new context only): the run worker
// made at start makes one once the run path's warm-up is over, while it waits for its first run. Without it, the heap grown by loading (LangGraph, the graphs, the warm-up's runs) was
// collected by a full collection on the first run's allocations: ~45 ms of that run's time to
// its first token in a CPU profile of a start (issue 89), where later runs pay only scavenges.
import v8 from 'node:v8';
import vm from 'node:vm';

let collect: (() => void) | undefined;

export function fullCollection(): void {
  if (!collect) {
    // the flag is read when a context is made: on for this one, off again for any other
    v8.setFlagsFromString('--expose-gc');
    try {
      collect = vm.runInNewContext('gc') as () => void;
    } finally {
      v8.setFlagsFromString('--no-expose-gc');
    }
  }
  collect();
}
