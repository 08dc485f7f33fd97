// Preloaded into a server by firstRun.ts's FIRST_RUN_COVERAGE (with NODE_V8_COVERAGE set): on
// SIGUSR2 every thread of the process writes V8's coverage since its last writing into
// NODE_V8_COVERAGE (v8.takeCoverage(), which resets the counts), the main thread from the
// signal, each worker when the main thread tells it on a broadcast channel. Written before a
// start's first run and right after it, the second writing names the functions that first run
// called, and the first says which of them had ever run before (firstRunCoverage.ts).
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

const channel = new BroadcastChannel('first-run-coverage');
channel.unref();
if (isMainThread) {
  process.on('SIGUSR2', () => {
    channel.postMessage('take');
    v8.takeCoverage();
  });
} else {
  channel.onmessage = () => v8.takeCoverage();
}
