// A node:test reporter that prints nothing: it records how long each test file's top-level
// tests took, in the file AGENTPLANE_TEST_DURATIONS names (merged over the last record), so
// that scripts/run-tests.ts starts the slowest files first and a run does not end on a long
// tail. (JavaScript: the runner loads its reporters before tsx's hooks are in place.)
import fs from 'node:fs';
import path from 'node:path';

// a reporter is an async generator of output; this one has none to give
// eslint-disable-next-line require-yield -- it only records
export default async function* durations(source) {
  const record = process.env.AGENTPLANE_TEST_DURATIONS;
  let recorded = {};
  try {
    if (record) recorded = JSON.parse(fs.readFileSync(record, 'utf8'));
  } catch {
    // none yet
  }
  const seconds = {};
  // the files that reported a result, for the runner to tell a file whose results never came (AGENTPLANE_TEST_REPORTED)
  const reportedTo = process.env.AGENTPLANE_TEST_REPORTED;
  const reported = new Set();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || !event.data.file) continue;
    // a compiled copy (scripts/compileTests.ts) is recorded as the test file it was compiled from
    const file = path.relative(process.cwd(), event.data.file).replace(/^\.cache[\\/]test-js[\\/][^\\/]+[\\/](.*)\.js$/, '$1.ts');
    if (reportedTo && !reported.has(file)) {
      reported.add(file);
      write(reportedTo, [...reported]);
    }
    // a suite declared in a shared module (test/conformance/local.ts) is reported under that
    // module, not under the file that ran it: that file keeps its kept record instead
    if (!file.endsWith('.test.ts')) continue;
    seconds[file] = (seconds[file] ?? 0) + event.data.details.duration_ms / 1000;
    recorded[file] = Math.round(seconds[file] * 10) / 10;
    // written as each test ends, not once the run has: the runner's --test-force-exit ends
    // the process as soon as the last test has, before a reporter's end is reached (the
    // record was never written since that flag came)
    if (record) write(record, recorded);
  }
}

/** Written whole and then renamed: CI may run two suites at once, and the other's reporter must never read a half-written record. */
function write(record, value) {
  fs.mkdirSync(path.dirname(record), { recursive: true });
  const written = `${record}.${process.pid}`;
  fs.writeFileSync(written, JSON.stringify(value, null, 2) + '\n');
  fs.renameSync(written, record);
}
