// `node --import ./test/support/preload.mjs`: tsx for the tests and the servers they start,
// with the big plain-JavaScript dependencies imported BEFORE tsx's hooks exist. Through the
// hooks every file of theirs costs a round trip to tsx's loader thread (LangGraph: ~300 ms
// plain, ~800 ms through tsx); loaded first, later imports of them find them in the module
// cache. The same order as bin/agentplane.js, for every test process and child server.
// Worker threads (which inherit the flag) get tsx alone, as with `--import tsx`: their entry
// files import what they need themselves (a static schema worker needs no LangGraph).
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  await import('@langchain/langgraph');
  await import('@langchain/core/messages');
}
const [{ register: registerEsm }, { register: registerCjs }] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
registerEsm();
registerCjs();
