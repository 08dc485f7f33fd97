// A run worker imports the project's modules that `serve` compiled ahead (shared/projectCompile.ts,
// issue 86), handed to it by the main thread, instead of starting tsx's hooks thread of its own and
// compiling them again: a graph run in the worker runs from the compiled copy, and one module
// imported by two graphs is one instance there too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { compileProjectModules } from '../../../src/shared/projectModule.ts';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

describe('a run worker imports the modules serve compiled', () => {
  // inside the repository, so that the project's imports of LangGraph resolve to its copy
  const dir = path.join(ROOT, '.cache', `project-compiled-${randomUUID()}`);
  const sets = new Set<string>();
  let server: InProcessApp;
  before(async () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'compiled-worker', private: true, type: 'module' }));
    fs.writeFileSync(path.join(dir, 'shared.ts'), 'export const made: number = Math.random();\nexport const stack = (): string => new Error().stack ?? "";\n');
    for (const name of ['one', 'two'])
      fs.writeFileSync(
        path.join(dir, `${name}.ts`),
        `import { made, stack } from './shared.ts';\nexport const ${name} = async () => ({ made, stack: stack() });\n`,
      );
    const compiled = await compileProjectModules([path.join(dir, 'one.ts'), path.join(dir, 'two.ts')]);
    assert.ok('modules' in compiled, JSON.stringify(compiled));
    for (const url of compiled.modules.values()) sets.add(/^(.*\/\.cache\/agentplane\/modules\/[0-9a-f]{16})\//.exec(fileURLToPath(url))![1]);
    const graphs = { one: `${path.join(dir, 'one.ts')}:one`, two: `${path.join(dir, 'two.ts')}:two` };
    server = await areaApp('agent-server', { project: { graphs }, compiledModules: false, dataDir: null, runWorkers: '1' });
  });
  after(async () => {
    await server?.close();
    for (const set of sets) fs.rmSync(set, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs each graph from its compiled copy, the module they share once', { timeout: 120_000 }, async () => {
    const client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
    const one = (await client.runs.wait(null, 'one', { input: {} })) as { made: number; stack: string };
    const two = (await client.runs.wait(null, 'two', { input: {} })) as { made: number; stack: string };
    assert.match(one.stack, /\.cache\/agentplane\/modules\/[0-9a-f]{16}\/.*shared\.ts\.mjs/, 'the worker ran the compiled copy');
    assert.equal(one.made, two.made, 'shared.ts evaluated once in the worker for both graphs');
  });
});
