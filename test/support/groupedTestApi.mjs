// node:test as a test file sees it when several files share one test process
// (scripts/run-tests.ts, groupEntry): the compiled copies import this module in its place.
//
// Node 20 puts a test, suite or hook in the suite whose body is running, found by the async
// id of the code registering it; a file's top level, evaluated by import(), runs in none, so
// its tests and its root hooks would land in the process's root, one file's beforeEach and
// after hooks running around every other file's tests. So while a file loads
// (collect()), what it registers is recorded here, and replayed (replay()) in the body of a
// suite named for the file, where node's own functions put each in that suite. Outside a
// load (a suite's body replayed, a test's own code) every call goes to node's own function.
// (JavaScript: the compiled test files import it as written.)
import * as nodeTest from 'node:test';
import { fileURLToPath } from 'node:url';

/** The calls the loading file made, in order, or undefined when no file is loading. */
let recording;

/** Records a registration while a file loads, else calls node's own `fn`. */
function routed(fn) {
  return (...args) => {
    // from its caller's place in both cases: node takes a test's location from the frame calling it
    const from = callerOf();
    if (!recording) return from(fn, args);
    recording.push(() => from(fn, args));
    // what node returns for a test registered in a suite: nothing to wait for
    return Promise.resolve();
  };
}

/**
 * A function that calls `fn(...args)` from where the test file called ours: node takes a
 * test's location (reported with its result, and named by a failure) from its caller's stack
 * frame, which would be this module. Evaluated code named
 * by `sourceURL` and laid out to that line and column stands in for the file's call.
 */
function callerOf() {
  const frame = new Error().stack?.split('\n')[3] ?? '';
  const at = /\(?((?:file:\/\/)?\/[^()]*?):(\d+):(\d+)\)?$/.exec(frame);
  if (!at) return (fn, args) => fn(...args);
  const [, url, line, column] = at;
  const key = `${url}:${line}:${column}`;
  let caller = callers.get(key);
  if (!caller) {
    const file = url.startsWith('file:') ? fileURLToPath(url) : url;
    const source = `(fn, args) =>${'\n'.repeat(Math.max(0, Number(line) - 1))}${' '.repeat(Math.max(0, Number(column) - 1))}fn(...args)\n//# sourceURL=${file}`;
    // the only way to give a stack frame a file and line of our choosing
    caller = (0, eval)(source);
    callers.set(key, caller);
  }
  return caller;
}
const callers = new Map();

/** `test`, `it`, `describe` and `suite`, each with its skip/todo/only forms, routed. */
function routedRunner(fn) {
  const runner = routed(fn);
  for (const form of ['skip', 'todo', 'only']) if (typeof fn[form] === 'function') runner[form] = routed(fn[form]);
  return runner;
}

export const test = routedRunner(nodeTest.test);
export const it = routedRunner(nodeTest.it);
export const describe = routedRunner(nodeTest.describe);
export const suite = routedRunner(nodeTest.suite ?? nodeTest.describe);
export const before = routed(nodeTest.before);
export const after = routed(nodeTest.after);
export const beforeEach = routed(nodeTest.beforeEach);
export const afterEach = routed(nodeTest.afterEach);
export const skip = routed(nodeTest.skip);
export const todo = routed(nodeTest.todo);
export const only = routed(nodeTest.only);
export const mock = nodeTest.mock;
export const run = nodeTest.run;
Object.assign(test, { test, it, describe, suite, before, after, beforeEach, afterEach, skip, todo, only, mock, run });
export default test;

/** Starts recording what the file about to load registers. */
export function collect() {
  recording = [];
}

/** Ends the recording; returns a function that registers what it recorded, to call in a suite's body. */
export function recorded() {
  const calls = recording ?? [];
  recording = undefined;
  return Object.assign(() => calls.forEach((call) => call()), { count: calls.length });
}
