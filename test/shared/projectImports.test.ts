// Which libraries a project's modules import, read before they load (shared/projectImports.ts):
// the compiled server loads those agentplane ships ahead of tsx's hooks (issue 67, start).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { packageName, packagesImportedBy } from '../../src/shared/projectImports.ts';
import { tempDir } from '../support/server.ts';

function project(files: Record<string, string>): string {
  const dir = tempDir('agentplane-project-imports-');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe("a project's imported libraries", () => {
  it('are those its modules import, statically or by a literal import(), and the local files they import by relative path', () => {
    const dir = project({
      'graph.ts': [
        "import { StateGraph } from '@langchain/langgraph';",
        "import type { BaseMessage } from '@langchain/core/messages';",
        "import { tool } from './tools.js';",
        "export * from './state';",
        "import fs from 'node:fs';",
        "const later = () => import('zod');",
      ].join('\n'),
      'tools.ts': "import {\n  tool,\n} from '@langchain/core/tools';\nexport { tool };\n",
      'state/index.ts': "export { Annotation } from '@langchain/langgraph/web';\n",
    });
    assert.deepEqual(packagesImportedBy([path.join(dir, 'graph.ts')]).sort(), [
      '@langchain/core/tools',
      '@langchain/langgraph',
      '@langchain/langgraph/web',
      'zod',
    ]);
  });

  it('are read from every module given, each file once, and a missing file adds none', () => {
    const dir = project({ 'a.ts': "import './b.ts';\nimport 'x';\n", 'b.ts': "import './a.ts';\nimport 'y';\n", 'c.mjs': "import 'z';\n" });
    const files = ['a.ts', 'c.mjs', 'gone.ts'].map((f) => path.join(dir, f));
    assert.deepEqual(packagesImportedBy(files).sort(), ['x', 'y', 'z']);
  });

  it('name their package without the subpath', () => {
    assert.equal(packageName('@langchain/core/messages'), '@langchain/core');
    assert.equal(packageName('zod/v4'), 'zod');
    assert.equal(packageName('zod'), 'zod');
  });
});
