// The start's graphs (issues 86/91): loaded before the first 200 unless an earlier start's check of
// the same graphs is remembered; then deferred, loaded after it, and a failure then stops the
// server as a refused start would (runtime/lateRefusal.ts). A failing check is never remembered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { graphsAtStart } from '../../src/compose/graphsAtStart.ts';
import { GraphRegistry, type PlainGraph } from '../../src/domain/agent/graphs/graphs.ts';
import { onLateRefusal } from '../../src/runtime/lateRefusal.ts';
import { createLogger } from '../../src/runtime/logging/logger.ts';
import { readGraphCheck, type GraphCheckSubject } from '../../src/shared/graphCheckRecord.ts';
import { tempDir } from '../support/tempDirs.ts';

const log = createLogger('silent');
const checkpointer = { langGraphSaver: () => Promise.reject(new Error('no saver here')) };
const echo: PlainGraph = (state) => state;

/** A compiled set of one module (no imports) in a project of its own. */
function subject(): GraphCheckSubject {
  const dir = fs.realpathSync(tempDir());
  const copy = path.join(dir, 'node_modules/.cache/agentplane/modules/0123456789abcdef/graph.ts.mjs');
  fs.mkdirSync(path.dirname(copy), { recursive: true });
  fs.writeFileSync(copy, 'export const echo = (s) => s;\n');
  return {
    set: '0123456789abcdef',
    modules: new Map([[path.join(dir, 'graph.ts'), pathToFileURL(copy).href]]),
    graphs: { echo: './graph.ts:echo' },
    functions: 'plain',
  };
}

function loader(fails?: Error) {
  let loads = 0;
  const load = async () => {
    loads += 1;
    if (fails) throw fails;
    const registry = new GraphRegistry();
    registry.add({ id: 'echo', kind: 'plain', fn: echo });
    return registry;
  };
  return { load, loads: () => loads };
}

/** Until the record written after a start's turn is there. */
async function recorded(checked: GraphCheckSubject) {
  for (let i = 0; i < 200 && !readGraphCheck(checked); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return readGraphCheck(checked);
}

test('a check that fails refuses the start and is never remembered; one that loads is, and the next start defers the load', async () => {
  const checked = subject();
  const failing = loader(new Error('graph "echo": cannot import graph.ts: boom'));
  await assert.rejects(graphsAtStart({ subject: checked, load: failing.load, checkpointer, log }), /boom/);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(readGraphCheck(checked), undefined, 'a failed check is not recorded');

  const first = loader();
  const loaded = await graphsAtStart({ subject: checked, load: first.load, checkpointer, log });
  assert.equal(first.loads(), 1, 'no record: loaded before the start answers');
  assert.equal(loaded.get('echo')?.kind, 'plain');
  assert.deepEqual(await recorded(checked), { echo: 'plain' });

  const second = loader();
  const deferred = await graphsAtStart({ subject: checked, load: second.load, checkpointer, log });
  assert.equal(second.loads(), 0, 'remembered: nothing loaded before the start answers');
  assert.deepEqual(deferred.ids(), ['echo']);
  assert.equal(deferred.kind('echo'), 'plain');
  assert.equal((await deferred.resolve('echo'))?.kind, 'plain', 'the first read that needs a graph loads them');
  assert.equal(second.loads(), 1);
});

test('without a compiled project (dev, tsx, a server in process) the graphs load at once and nothing is recorded', async () => {
  const plain = loader();
  const graphs = await graphsAtStart({ subject: undefined, load: plain.load, checkpointer, log });
  assert.equal(plain.loads(), 1);
  assert.equal(graphs.get('echo')?.kind, 'plain');
});

test('a remembered check whose load fails after the start stops the server with the load’s error, and is forgotten', async () => {
  const checked = subject();
  await graphsAtStart({ subject: checked, load: loader().load, checkpointer, log });
  assert.ok(await recorded(checked));
  const refusals: Error[] = [];
  onLateRefusal((err) => refusals.push(err));
  try {
    const error = new Error('graph "echo": cannot import graph.ts: OPENAI_API_KEY is not set');
    const graphs = await graphsAtStart({ subject: checked, load: loader(error).load, checkpointer, log });
    assert.deepEqual(refusals, [], 'the start answered');
    await assert.rejects(graphs.loaded(), error, 'the reads waiting for the graphs answer the error');
    await assert.rejects(graphs.resolve('echo'), error);
    assert.deepEqual(refusals, [error], 'serve is told once: it stops the server and exits 1 with the message');
    assert.equal(readGraphCheck(checked), undefined, 'the next start checks before it answers');
  } finally {
    onLateRefusal(undefined);
  }
});
