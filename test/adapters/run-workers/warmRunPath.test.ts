// A run worker's warm-up before it is ready (issue 89): agentplane's own graph run through the run
// path (graphExecutor over a store of its own, in memory), its events made into the JSON text a
// worker posts; none where the runs would be seen (LangSmith tracing on).
import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { warmRunPath } from '../../../src/adapters/run-workers/warmRunPath.ts';

afterEach(() => delete process.env.LANGSMITH_TRACING);

it('runs the warm-up graph through the run path, every run streaming', async () => {
  // each run: the agent's tool call and its answer (messages, updates, values)
  assert.ok((await warmRunPath()) >= 5);
  assert.ok((await warmRunPath(3)) >= 3 * 5);
});

it('runs nothing where LangSmith tracing is on (its tracer would send the runs)', async () => {
  process.env.LANGSMITH_TRACING = 'true';
  assert.equal(await warmRunPath(), 0);
});
