// Schemas read from a graph's TypeScript types are kept on disk beside the project's
// dependencies and used again only while every file the compiler read is unchanged: a later
// server (or test process) answers without the compiler's seconds of work, and an edit to an
// imported types file is never answered from the old reading.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { staticSchemas } from '../../../src/adapters/run-workers/staticSchemas.ts';
import { keepSchemas, keptSchemasFile, readKeptSchemas } from '../../../src/adapters/run-workers/staticSchemaCache.ts';
import { ROOT } from '../../support/server.ts';

type Schema = { properties: Record<string, { type?: string; properties?: Record<string, { type?: string }> }> };

describe('schemas read from TypeScript types, kept on disk', () => {
  // inside the repository (git-ignored .cache), so the graph resolves LangGraph and the compiler from its node_modules
  const dir = path.join(ROOT, '.cache', `schema-cache-test-${randomUUID()}`);
  const graphFile = path.join(dir, 'graph.ts');
  const typesFile = path.join(dir, 'types.ts');
  const compiler = pathToFileURL(createRequire(import.meta.url).resolve('typescript')).href;
  before(() => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(typesFile, 'export interface Note { text: string }\n');
    fs.writeFileSync(
      graphFile,
      [
        "import { Annotation, MessagesAnnotation, StateGraph } from '@langchain/langgraph';",
        "import type { Note } from './types.ts';",
        // typed by its reducer alone: the source text cannot tell, the type checker reads it
        "const State = Annotation.Root({ ...MessagesAnnotation.spec, note: Annotation({ reducer: (_a: Note, b: Note) => b, default: () => ({ text: '' }) }) });",
        "export const graph = new StateGraph(State).addNode('n', () => ({})).addEdge('__start__', 'n').compile();",
        '',
      ].join('\n'),
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps the compiler’s answer with every file it read, and gives it back while they are unchanged', { timeout: 120_000 }, async () => {
    const schemas = await staticSchemas(graphFile, 'graph');
    assert.equal((schemas?.state as Schema).properties.note.properties?.text.type, 'string');
    const keptFile = keptSchemasFile(graphFile, 'graph', compiler)!;
    assert.ok(keptFile.startsWith(path.join(ROOT, 'node_modules', '.cache', 'agentplane')), keptFile);
    const inputs = (JSON.parse(fs.readFileSync(keptFile, 'utf8')) as { inputs: [string][] }).inputs.map(([file]) => file);
    assert.ok(inputs.includes(graphFile) && inputs.includes(typesFile), 'the module and what it imports');
    assert.ok(
      inputs.some((file) => file.includes(`${path.sep}@langchain${path.sep}langgraph${path.sep}`)),
      'the declarations of its dependencies',
    );
    assert.ok(
      inputs.some((file) => /staticSchemaWorker\.(ts|js)$/.test(file)),
      'the extractor itself',
    );
    assert.deepEqual(readKeptSchemas(keptFile), schemas);
  });

  it('an edit to an imported types file makes the kept answer stale', () => {
    const keptFile = keptSchemasFile(graphFile, 'graph', compiler)!;
    assert.notEqual(readKeptSchemas(keptFile), undefined);
    fs.writeFileSync(typesFile, 'export interface Note { text: number }\n');
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(typesFile, later, later);
    assert.equal(readKeptSchemas(keptFile), undefined);
  });

  it('a damaged or missing kept file is no answer, and a file that vanished is never kept', () => {
    const keptFile = path.join(dir, 'kept', 'answer.json');
    assert.equal(readKeptSchemas(keptFile), undefined);
    keepSchemas(keptFile, [graphFile], null);
    assert.equal(readKeptSchemas(keptFile), null, 'a module without such a graph is an answer too');
    fs.writeFileSync(keptFile, '{"inputs": [');
    assert.equal(readKeptSchemas(keptFile), undefined);
    fs.rmSync(keptFile);
    keepSchemas(keptFile, [graphFile, path.join(dir, 'gone.ts')], null);
    assert.equal(fs.existsSync(keptFile), false);
  });

  it('a project without node_modules keeps nothing', () => {
    assert.equal(keptSchemasFile('/graph.ts', 'graph', compiler), undefined);
  });
});
