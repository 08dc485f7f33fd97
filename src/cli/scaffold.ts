// `agentplane init`: a minimal LangGraph.js project in a folder, as `langgraph new` makes one —
// a langgraph.json naming one graph, and that graph, which answers each message without a
// model or a key — so that `agentplane dev` has something to serve and a person something to edit.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { PROJECT_FILE_NAMES } from '../runtime/project/project.ts';
import { SCAFFOLD_PACKAGES, writeScaffoldPackageJson, type PackageJsonResult } from './scaffoldPackage.ts';

const GRAPH = `// The graph \`agent\` of this project: it answers each message by repeating it. Replace the
// node with your own logic or model calls; \`agentplane-server dev\` reloads it on save.
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';

export const graph = new StateGraph(MessagesAnnotation)
  .addNode('respond', (state) => {
    const last = state.messages.at(-1);
    const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    return { messages: [{ role: 'ai', content: \`You said: \${text}\` }] };
  })
  .addEdge('__start__', 'respond')
  .compile();
`;

const PROJECT = `${JSON.stringify({ node_version: '20', dependencies: ['.'], graphs: { agent: './src/agent.ts:graph' } }, null, 2)}\n`;

/** The files of the scaffold, by path relative to the project folder. */
export const SCAFFOLD_FILES: Record<string, string> = { 'langgraph.json': PROJECT, 'src/agent.ts': GRAPH };

export type ScaffoldResult = { ok: true; created: string[]; packageJson: PackageJsonResult; missingPackages: string[] } | { ok: false; existing: string[] };

/**
 * Writes the scaffold into `dir`, and a package.json listing what it imports (or adds those to
 * the one there); writes nothing when a project file or a scaffold file is already there.
 */
export function scaffoldProject(dir: string): ScaffoldResult {
  const existing = [...new Set([...PROJECT_FILE_NAMES, ...Object.keys(SCAFFOLD_FILES)])].filter((name) => fs.existsSync(path.join(dir, name)));
  if (existing.length) return { ok: false, existing };
  for (const [name, text] of Object.entries(SCAFFOLD_FILES)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text, { flag: 'wx' });
  }
  const packageJson = writeScaffoldPackageJson(dir);
  // the graph imports @langchain/langgraph from the project, as upstream servers load it
  const resolve = createRequire(path.join(dir, 'package.json')).resolve;
  const missingPackages = SCAFFOLD_PACKAGES.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch (err) {
      // a package without a CommonJS entry is there all the same; any other failure (not
      // found, or a package.json node cannot parse) leaves the graph unable to import it
      return (err as NodeJS.ErrnoException).code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED';
    }
  });
  const created = [...Object.keys(SCAFFOLD_FILES), ...(packageJson.action === 'created' ? ['package.json'] : [])];
  return { ok: true, created, packageJson, missingPackages };
}
