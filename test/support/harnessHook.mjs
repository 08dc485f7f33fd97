// Loaded (`--import`) by every test process scripts/run-tests.ts starts: node:test without its
// promise tracking.
//
// Node 20's test harness enables an async hook with `init` and `destroy` for the whole process
// (internal/test_runner/harness `setup`), so that it can tell which test an uncaught error came
// from. With it every promise the tests make pays V8's promise hooks, a JavaScript init call and a
// destroy callback (a weak reference the collector must process): ~6 % of a promise-heavy file's
// CPU, and in an A/B of the campaign and `operations.subscribe` ~15 % (scripts/bench/findings.md,
// "Tests: ... node:test's hook"). What the harness needs from it besides that blame: a test,
// suite or hook registered while a suite's body runs goes into that suite, found by the async id
// of the code registering it, the suite's own (a Test is an AsyncResource whose body runs in
// `runInAsyncScope`). So the harness gets a hook that is never enabled, and each Test is handed
// to the harness's `init` when it first runs its body: its tests still nest as before (suites,
// subtests, the grouped files' suites of groupEntry), and no promise is tracked.
//
// What changes: an uncaught error thrown where no test's body is on the stack (a timer's callback,
// a stray rejection) is no longer blamed on its test. The harness reports it as a top-level
// diagnostic ("A resource generated asynchronous activity after the test ended ...") and fails
// the file (exit code 1); this module says where to look, and ends the process 30 s later if a
// test left waiting for what the error stopped holds it open. A test file run on its own
// (`node --import ./test/support/preload.mjs --test <file>`) has the harness's own hook.
import asyncHooks from 'node:async_hooks';

const { createHook, AsyncResource } = asyncHooks;
/** How long a process that had an unblamed uncaught error may run on. */
const UNBLAMED_GRACE_MS = 30_000;

// the test processes (node --test's children), not the runner or node's parent process
if (process.env.NODE_TEST_CONTEXT) {
  asyncHooks.createHook = function harnessHook(callbacks) {
    // only the harness's own hook, once (it destructures createHook as it loads, after this)
    if (!/internal\/test_runner\/harness/.test(new Error().stack ?? '')) return createHook.call(this, callbacks);
    asyncHooks.createHook = createHook;
    const { init } = callbacks;
    let enabled = false;
    const known = new WeakSet();
    const runInAsyncScope = AsyncResource.prototype.runInAsyncScope;
    AsyncResource.prototype.runInAsyncScope = function (fn, thisArg, ...args) {
      // the harness's init maps a Test to itself, and any other resource to the test it was made
      // in (its trigger), if any: as its own hook would have at the resource's creation
      if (enabled && !known.has(this)) {
        known.add(this);
        init(this.asyncId(), 'Test', this.triggerAsyncId(), this);
      }
      return Reflect.apply(runInAsyncScope, this, [fn, thisArg, ...args]);
    };
    for (const event of ['uncaughtException', 'unhandledRejection']) {
      process.on(event, () => {
        console.error(
          `${process.argv[1]}: an uncaught error (${event}; the harness's report names no test: npm test's processes do not track promises, ` +
            `test/support/harnessHook.mjs). Run the file alone to see which test: node --import ./test/support/preload.mjs --test <file>`,
        );
        setTimeout(() => {
          console.error(`${process.argv[1]}: ended ${UNBLAMED_GRACE_MS} ms after an uncaught error its tests did not see`);
          process.exit(1);
        }, UNBLAMED_GRACE_MS).unref();
      });
    }
    return {
      enable() {
        enabled = true;
        return this;
      },
      disable() {
        enabled = false;
        return this;
      },
    };
  };
}
