// `node --import ./test/support/preload.mjs`: tsx for the tests and the servers they start,
// with the big plain-JavaScript dependencies imported BEFORE tsx's hooks exist. Through the
// hooks every file of theirs costs a round trip to tsx's loader thread (LangGraph: ~300 ms
// plain, ~800 ms through tsx); loaded first, later imports of them find them in the module
// cache. The same order as bin/agentplane.js, for every test process and child server.
// Worker threads inherit the flag but are left alone: agentplane's worker entries
// (workerEntry.mjs, staticSchemaEntry.mjs) import LangGraph and then register tsx themselves,
// as they do under bin/agentplane.js; registering here first would put everything they load
// through a second loader thread (~0.5 CPU-s more per run worker).
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  await import('@langchain/langgraph');
  await import('@langchain/core/messages');
  const [{ register: registerEsm }, { register: registerCjs }] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  registerEsm();
  registerCjs();
}
