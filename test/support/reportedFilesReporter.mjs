// A node:test reporter that prints nothing: it lists, in the file AGENTPLANE_TEST_REPORTED
// names, the test files that reported a result, so that scripts/run-tests.ts can fail a run
// in which a file that declares tests reported none (its tests were lost, not passed).
// (JavaScript: the runner loads its reporters before any compile step or hook.)
import fs from 'node:fs';
import path from 'node:path';

// a reporter is an async generator of output; this one has none to give
// eslint-disable-next-line require-yield -- it only records
export default async function* reportedFiles(source) {
  const reportedTo = process.env.AGENTPLANE_TEST_REPORTED;
  const reported = new Set();
  for await (const event of source) {
    // every level: where files share a process (scripts/run-tests.ts, groupEntry) a file's
    // tests are one level down, in a suite its process's entry file declares
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || !event.data.file) continue;
    // a compiled copy (scripts/compileTests.ts) is listed as the test file it was compiled from
    const file = path.relative(process.cwd(), event.data.file).replace(/^\.cache[\\/]test-js[\\/][^\\/]+[\\/](.*)\.js$/, '$1.ts');
    reported.add(file);
  }
  // once, at the end of the run: the runner reads it after node's runner has exited
  if (reportedTo) write(reportedTo, [...reported]);
}

/** Written whole and then renamed: the runner must never read a half-written list. */
function write(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const written = `${file}.${process.pid}`;
  fs.writeFileSync(written, JSON.stringify(value, null, 2) + '\n');
  fs.renameSync(written, file);
}
