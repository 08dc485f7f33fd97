// Which release of @langchain/langgraph a project's graphs import, and what of LangGraph.js's
// streaming that release has. A project pins its own LangGraph (react-agent-js pins 0.2.8),
// which agentplane drives through the graph's own methods: what those methods take and yield
// changed within 0.2.x (the release notes and the library's source at each tag say when).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** agentplane's own LangGraph, which a project without one imports. */
export const OWN_LANGGRAPH_RELEASE = (require('@langchain/langgraph/package.json') as { version: string }).version;

/**
 * The `@langchain/langgraph` Node resolves from `dir` (its package.json is read directly: not
 * every version exports it), else agentplane's own.
 */
export function langGraphReleaseNear(dir: string): string {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(at, 'node_modules', '@langchain', 'langgraph', 'package.json'), 'utf8')) as { version?: unknown };
      if (typeof pkg.version === 'string') return pkg.version;
    } catch {
      /* not installed here: look further up */
    }
    if (path.dirname(at) === at) return OWN_LANGGRAPH_RELEASE;
  }
}

/** The oldest release agentplane serves: 0.1.x kept its checkpointers in the library, with another interface. */
export const OLDEST_SERVED_RELEASE = '0.2.0';

/** What a release's `graph.stream` and `streamEvents` take and give. */
export interface StreamSupport {
  /** `streamMode: [one]` yields `[mode, chunk]` (0.2.20 on); before, a lone mode's chunks come bare. */
  tuplesForOneMode: boolean;
  /** The `messages` stream mode (0.2.20 on). */
  messagesMode: boolean;
  /** `subgraphs: true`, chunks then carry their namespace (0.2.9 on). */
  subgraphs: boolean;
}

/** [major, minor, patch] of a version (a prerelease counts as its release). */
function parts(version: string): number[] {
  return version
    .split(/[-+]/)[0]!
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
}

/** Whether `version` is `floor` or newer. */
export function atLeast(version: string, floor: string): boolean {
  const [a, b] = [parts(version), parts(floor)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

export function streamSupport(release: string): StreamSupport {
  return { tuplesForOneMode: atLeast(release, '0.2.20'), messagesMode: atLeast(release, '0.2.20'), subgraphs: atLeast(release, '0.2.9') };
}

/** Why a project's LangGraph is not served, or undefined when it is. */
export function unservedRelease(release: string): string | undefined {
  if (atLeast(release, OLDEST_SERVED_RELEASE)) return undefined;
  return `the project imports @langchain/langgraph ${release}; agentplane serves LangGraph.js ${OLDEST_SERVED_RELEASE} and newer (0.1 releases keep their checkpointers inside the library, with an interface agentplane does not drive): upgrade it in the project's package.json`;
}
