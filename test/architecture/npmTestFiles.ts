// What the architecture rules on test files read: the files `npm test` runs, and the calls in
// a source file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The suites `npm test` leaves out, by their files' suffix (scripts/run-tests.ts). */
const SUITES = ['e2e', 'release', 'containers', 'faults', 'conformance', 'differential'];

/** The files `npm test` runs (scripts/run-tests.ts with no flag), relative to the repository. */
export function npmTestFiles(dir = 'test'): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'node_modules' ? [] : npmTestFiles(p);
    if (!p.endsWith('.test.ts')) return [];
    const suite = /\.([^.]+)\.test\.ts$/.exec(e.name)?.[1];
    return suite && SUITES.includes(suite) ? [] : [p];
  });
}

/** The argument text of each call of `name(` in `source` (up to its closing parenthesis). */
export function callsOf(source: string, name: string): string[] {
  const calls: string[] = [];
  const opening = new RegExp(`\\b${name}\\(`, 'g');
  for (let m = opening.exec(source); m; m = opening.exec(source)) {
    let depth = 1;
    let i = m.index + m[0].length;
    for (; i < source.length && depth > 0; i++) depth += source[i] === '(' ? 1 : source[i] === ')' ? -1 : 0;
    calls.push(source.slice(m.index + m[0].length, i - 1));
  }
  return calls;
}

/** `source` without its line comments (a call named in a comment is no call). */
export const withoutComments = (source: string) => source.replace(/^\s*\/\/.*$/gm, '');

/** A test's source that spawns the CLI's serve or dev, as a user starts it (bin/agentplane.js) or from the run's compiled copy (test/support/childImports.ts cliEntry). */
export const SPAWNS_CLI_SERVER = /(bin\/agentplane\.js'\)|\.\.\.cliEntry\(\)),\s*'(serve|dev)'/;
