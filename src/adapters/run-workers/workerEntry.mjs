// Starts a run worker from the sources (a clone, the tests): tsx's loader does not reach
// worker threads, whatever the main thread registered, so each worker registers its own,
// exactly as bin/agentplane.js does (LangGraph imported first: through the hooks each of
// its files costs a round trip to the loader thread). The compiled package starts
// runWorker.js directly.
await import('@langchain/langgraph');
await import('@langchain/core/messages');
const { register } = await import('tsx/esm/api');
register();
await import('./runWorker.ts');
