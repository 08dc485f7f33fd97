// A run worker loads a project as the server's own thread does (issue 90, item 0): the same
// loader (shared/projectModule.ts), registered in the worker, since tsx's hooks of one thread do
// not reach another. Every cell of the layout matrix (test/support/projectLayouts.ts) is run in
// a worker: packages with no "type", "module" and "commonjs"; TypeScript and JavaScript graphs
// importing siblings as `.ts`, `.js` and extensionless; .mts and .cts; a tsconfig alias; a
// CommonJS dependency.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { layoutCells, writeLayoutProject } from '../../support/projectLayouts.ts';

const cells = layoutCells();

describe('a run worker loads every project layout', () => {
  // inside the repository, so that the project's imports of LangGraph resolve to its copy
  const dir = path.join(ROOT, '.cache', `project-layouts-${randomUUID()}`);
  let server: InProcessApp;
  before(async () => {
    writeLayoutProject(dir, cells);
    const graphs = Object.fromEntries(cells.map((cell) => [cell.id, `${path.join(dir, cell.id, cell.graph)}:graph`]));
    server = await areaApp('agent-server', { project: { graphs }, compiledModules: false, dataDir: null, runWorkers: '1' });
  });
  after(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('and each of its graphs answers its run', { timeout: 120_000 }, async () => {
    const client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
    const answered: Record<string, unknown> = {};
    for (const cell of cells) answered[cell.id] = await client.runs.wait(null, cell.id, { input: { n: 3 } });
    assert.deepEqual(answered, Object.fromEntries(cells.map((cell) => [cell.id, { n: 6 }])));
  });
});
