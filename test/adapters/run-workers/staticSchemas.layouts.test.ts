// A graph's schemas are read from its types whatever the project's layout (issue 90, item 0):
// the type checker resolves the graph's imports as tsx does when the graph runs. A state
// imported from an extensionless sibling of an ES module (`./state` in a "type": "module"
// package), which NodeNext refuses, or through a tsconfig `paths` alias, was an unknown type
// and its schema had no properties; upstream's reader, which takes the project's tsconfig,
// lists them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { staticSchemas } from '../../../src/adapters/run-workers/staticSchemas.ts';
import { ROOT } from '../../support/server.ts';

const STATE = "import { Annotation } from '@langchain/langgraph';\nexport const S = Annotation.Root({ n: Annotation<number>, label: Annotation<string> });\n";
const graphImporting = (specifier: string) =>
  [
    "import { StateGraph } from '@langchain/langgraph';",
    `import { S } from '${specifier}';`,
    "export const graph = new StateGraph(S).addNode('d', async (s: typeof S.State) => ({ n: s.n * 2 })).addEdge('__start__', 'd').compile();",
    '',
  ].join('\n');

describe("a graph's schemas, read from a state defined in another module", () => {
  // inside the repository (git-ignored .cache), so the graph resolves LangGraph and the compiler from its node_modules
  const dir = path.join(ROOT, '.cache', `schema-layouts-${randomUUID()}`);
  const files: Record<string, string> = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, paths: { '@shared/*': ['./shared/*'] } } }),
    'shared/state.ts': STATE,
    'module/package.json': JSON.stringify({ type: 'module' }),
    'module/state.ts': STATE,
    'module/bare.ts': graphImporting('./state'),
    'module/alias.ts': graphImporting('@shared/state'),
    'none/package.json': JSON.stringify({ name: 'none' }),
    'none/alias.ts': graphImporting('@shared/state'),
  };
  before(() => {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const graph of ['module/bare.ts', 'module/alias.ts', 'none/alias.ts'])
    it(`${graph}: the state's every channel, typed`, { timeout: 120_000 }, async () => {
      const schemas = await staticSchemas(path.join(dir, graph), 'graph', { checker: true });
      assert.deepEqual((schemas?.state as { properties?: unknown } | undefined)?.properties, { n: { type: 'number' }, label: { type: 'string' } });
    });
});
