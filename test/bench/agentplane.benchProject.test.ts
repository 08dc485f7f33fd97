// The bench's LangGraph graph resolves its imports in the tree of the server that serves it
// (scripts/bench/agentplane.ts): a baseline's server then runs one copy of LangChain, its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchProject } from '../../scripts/bench/agentplane.ts';
import { BENCH_GRAPH } from '../../scripts/bench/graph.ts';

test('the bench graph is written inside the server’s own tree', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-project-'));
  try {
    const [file] = benchProject(root).graphs[BENCH_GRAPH].split(/:(?=[^:]+$)/);
    assert.equal(path.relative(root, file).startsWith('..'), false, file);
    assert.ok(fs.existsSync(file));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
