// Which copy of the conformance suite `agentplane conformance` runs. The npm package ships
// only the compiled one (dist/). A clone has both: the compiled one while dist/ was built
// from the sources as they are (bin/compiledSources.js decides, as it does for the CLI
// itself), since loading the TypeScript through tsx costs every run ~2 CPU-s more; the
// sources through tsx otherwise, so an edit to the suite takes effect without a build.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const SOURCE = ['test', 'conformance', 'remote.suite.ts'];
const COMPILED = ['dist', 'test', 'conformance', 'remote.suite.js'];

/** The suite's file under the package root `root`, given whether its dist/ is current. */
export function conformanceSuiteFile(root: string, compiledIsCurrent: (root: string) => boolean): string {
  const source = path.join(root, ...SOURCE);
  return fs.existsSync(source) && !compiledIsCurrent(root) ? source : path.join(root, ...COMPILED);
}

/** As conformanceSuiteFile, with the check the CLI's entry point makes (in bin/, outside dist/: found from the root, and only in a clone). */
export async function conformanceSuite(root: string): Promise<string> {
  if (!fs.existsSync(path.join(root, ...SOURCE))) return path.join(root, ...COMPILED);
  const { compiledIsCurrent } = (await import(pathToFileURL(path.join(root, 'bin', 'compiledSources.js')).href)) as {
    compiledIsCurrent: (root: string) => boolean;
  };
  return conformanceSuiteFile(root, compiledIsCurrent);
}
