// serve compiles every module the project file names at once (compose/projectCompilation.ts): a
// module any of them imports gets one compiled copy, whichever of them loads first (auth loads
// before the graphs, http.app after them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { projectModuleFiles } from '../../src/compose/projectCompilation.ts';

test('the graphs, http.app, auth.path and the store’s embeddings, as absolute paths; a hosted model and a missing entry name none', () => {
  const base = path.resolve('/project');
  const files = projectModuleFiles(
    {
      graphs: { a: './src/a.ts:graph', b: { path: './src/b.mts' }, c: '/elsewhere/c.ts:make' },
      http: { app: './src/app.ts:app' },
      auth: { path: './src/auth.ts' },
      store: { index: { embed: './src/embed.ts:embed', dims: 3 } },
    },
    base,
  );
  assert.deepEqual(files, [
    path.join(base, 'src/a.ts'),
    path.join(base, 'src/b.mts'),
    path.resolve('/elsewhere/c.ts'),
    path.join(base, 'src/app.ts'),
    path.join(base, 'src/auth.ts'),
    path.join(base, 'src/embed.ts'),
  ]);
  assert.deepEqual(projectModuleFiles({ store: { index: { embed: 'openai:text-embedding-3-small', dims: 3 } } }, base), []);
  assert.deepEqual(projectModuleFiles({}, base), []);
});
