// The heap a test's objects hold: V8's used heap after a full collection (gc exposed for the
// test process on first use), so a bytes-per-record bound reads what is live, not garbage.
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | undefined;

/** Bytes of heap in use after a full collection. */
export function liveHeapUsed(): number {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
  return process.memoryUsage().heapUsed;
}
