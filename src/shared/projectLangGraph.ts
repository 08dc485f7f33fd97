// The LangGraph release a project's graphs run on: what /info names and what each run's
// metadata says (`langgraph_version`), as upstream's server reads it from the install the
// graphs import.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const OWN_VERSION = (createRequire(import.meta.url)('@langchain/langgraph/package.json') as { version: string }).version;

/**
 * The `@langchain/langgraph` Node resolves from the project's folder (its package.json is read
 * directly: not every version exports it), else agentplane's own, which a project without one gets.
 */
export function projectLangGraphVersion(baseDir: string): string {
  for (let at = path.resolve(baseDir); ; at = path.dirname(at)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(at, 'node_modules', '@langchain', 'langgraph', 'package.json'), 'utf8')) as { version?: unknown };
      if (typeof pkg.version === 'string') return pkg.version;
    } catch {
      /* not installed here: look further up */
    }
    if (path.dirname(at) === at) return OWN_VERSION;
  }
}
