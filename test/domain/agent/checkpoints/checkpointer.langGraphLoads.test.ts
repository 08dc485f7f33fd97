// LangGraph is loaded only where a graph runs (issue 66): the store side of the checkpoints
// (threads, their state and history, deletes) imports none of it, so a server without a
// graph (here answering in process), and a test process of the store side, never load its ~330 modules. Checked in a
// fresh process whose every module load is recorded (recordLoads.mjs), with no preload (the
// test preload and the CLI's entry import LangGraph first, on purpose, for the servers that do
// load graphs): the run's compiled copies of the modules when the tests run compiled (a
// process through tsx costs ~4 CPU-s, four of them most of this file's), else through tsx. Its stream helpers (`@langchain/langgraph/stream`: four small
// modules, no runtime) are allowed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDir } from '../../../support/server.ts';
import { COMPILED_TESTS_ENV } from '../../../support/compiledGraphs.ts';

/** The run's compiled copies of the repository's modules (scripts/compileTests.ts), when the tests run compiled. */
const compiled = process.env[COMPILED_TESTS_ENV];

/** Runs `script` (an ES module's text) in a fresh process (through tsx unless the tests run compiled); answers the URLs it loaded. */
async function loadsOf(script: string): Promise<string[]> {
  const loads = path.join(tempDir(), 'loads.txt');
  fs.writeFileSync(loads, '');
  const child = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(path.join(ROOT, 'test/support/recordLoads.mjs')).href,
      ...(compiled ? [] : ['--import', 'tsx/esm']),
      '--input-type=module',
      '-e',
      script,
    ],
    { cwd: ROOT, env: { ...process.env, RECORD_LOADS: loads }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, out);
  return fs.readFileSync(loads, 'utf8').split('\n');
}

/** The LangGraph modules loaded, but for its stream helpers. */
const langGraphIn = (loads: string[]) => loads.filter((u) => u.includes('/node_modules/@langchain/langgraph/') && !/\/dist\/stream(\.js|\/)/.test(u));
/** A module of the repository as the script imports it: its compiled copy when the tests run compiled. */
const at = (file: string) => JSON.stringify(pathToFileURL(compiled ? path.join(compiled, file.replace(/\.ts$/, '.js')) : path.join(ROOT, file)).href);
/** Whether the module `file` (`.ts` in the repository) was loaded, from its source or its compiled copy. */
const loaded = (loads: string[], file: string) => loads.some((u) => u.endsWith(`/${file}`) || u.endsWith(`/${file.replace(/\.ts$/, '.js')}`));

/** The URLs loaded by a fresh process that starts the test helpers' in-process application (`options`, as code) and runs `calls` on it (`server`). */
const loadsOfApp = (options: string, calls: string) =>
  loadsOf(`
    import { inProcessApp } from ${at('test/support/server.ts')};
    const server = await inProcessApp(${options});
    try {
      ${calls}
    } finally {
      await server.close();
    }
  `);

test('the application without a graph answers, creates, reads and deletes a thread without loading LangGraph', async () => {
  const loads = await loadsOfApp(
    '{ dataDir: null, project: { graphs: {} } }',
    `
      const ok = await server.fetch('/ok');
      if (ok.status !== 200) throw new Error('/ok: ' + ok.status);
      const thread = await (await server.api('/threads', { method: 'POST', json: {} })).json();
      for (const [pathname, init] of [['/threads/' + thread.thread_id + '/state', {}], ['/threads/' + thread.thread_id + '/history', {}], ['/threads/' + thread.thread_id, { method: 'DELETE' }]]) {
        const res = await server.api(pathname, init);
        if (!res.ok) throw new Error(pathname + ': ' + res.status + ' ' + (await res.text()));
      }
    `,
  );
  assert.ok(loaded(loads, 'src/domain/agent/checkpoints/checkpointer.ts'), 'the hook records loads (the checkpointer was loaded)');
  assert.deepEqual(langGraphIn(loads), []);
});

test("a test server as the test helpers make it by default serves the example project's plain `echo` graph and loads no LangGraph", async () => {
  // the helpers serve the example project's LangGraph graphs only to a test asking for them
  // (exampleGraphs: 'all'), so that a test process running none does not load LangGraph
  // (a run loads it still: a plain graph's context.store is a LangGraph BaseStore)
  const loads = await loadsOfApp(
    '{ dataDir: null }',
    `
      const assistants = await (await server.api('/assistants/search', { method: 'POST', json: {} })).json();
      const graphs = assistants.map((a) => a.graph_id).sort().join(',');
      if (graphs !== 'echo') throw new Error('served graphs: ' + graphs);
      const thread = await server.api('/threads', { method: 'POST', json: {} });
      if (thread.status !== 200) throw new Error('/threads: ' + thread.status);
    `,
  );
  assert.ok(
    // the source, or the run's compiled copy of it, which the helpers serve when the tests run compiled
    loads.some((u) => /\/examples\/graphs\/echo\.(ts|js)$/.test(u)),
    'the echo graph was loaded',
  );
  assert.deepEqual(langGraphIn(loads), []);
});

test('a run of the plain `echo` graph, its memory store (a LangGraph BaseStore) made, loads no LangGraph but for the checkpoint package', async () => {
  // BaseStore, the serialiser and copyCheckpoint are LangGraph's own, imported from
  // @langchain/langgraph-checkpoint (which LangGraph re-exports): a plain run needs no more
  const loads = await loadsOfApp(
    '{ dataDir: null }',
    `
      const thread = await (await server.api('/threads', { method: 'POST', json: {} })).json();
      const res = await server.api('/threads/' + thread.thread_id + '/runs/wait', { method: 'POST', json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'hi' }] } } });
      if (res.status !== 200) throw new Error('/runs/wait: ' + res.status + ' ' + (await res.text()));
      const state = await server.api('/threads/' + thread.thread_id + '/state');
      if (state.status !== 200) throw new Error('/state: ' + state.status);
    `,
  );
  assert.ok(loaded(loads, 'src/domain/memory/langgraphStore.ts'), 'the run made its memory store');
  assert.deepEqual(langGraphIn(loads), []);
});

test("the store's checkpointer counts, prunes and deletes a thread's checkpoints without loading LangGraph; its graphs' saver loads it", async () => {
  const loads = await loadsOf(`
    import { openJournalStore } from ${at('src/adapters/embedded/journalStore.ts')};
    import { CollectionCheckpoints } from ${at('src/adapters/embedded/collectionCheckpoints.ts')};
    import { StoreCheckpointer } from ${at('src/domain/agent/checkpoints/checkpointer.ts')};
    import fs from 'node:fs';
    const store = await openJournalStore({ dataDir: null });
    const checkpointer = new StoreCheckpointer(new CollectionCheckpoints(store));
    await checkpointer.count('t1');
    await checkpointer.prune('t1');
    await checkpointer.deleteThread('t1');
    if ((await checkpointer.getTuple({ configurable: { thread_id: 't1' } })) !== undefined) throw new Error('a checkpoint out of nowhere');
    fs.appendFileSync(process.env.RECORD_LOADS, 'store side done\\n');
    const saver = await checkpointer.langGraphSaver();
    if (saver.serde !== checkpointer.serde) throw new Error('the store reads with the saver’s serialiser');
    await store.close();
  `);
  const storeSide = loads.slice(0, loads.indexOf('store side done'));
  assert.ok(storeSide.length > 0 && storeSide.length < loads.length, 'the store side finished before the saver was made');
  assert.deepEqual(langGraphIn(storeSide), []);
  assert.ok(langGraphIn(loads).length > 0, "the graphs' saver imports LangGraph");
});
