#!/usr/bin/env node
// Runs the TypeScript sources through tsx's loader (no build step to go stale).
// The big plain-JavaScript dependencies are imported first, before tsx's hooks exist: through
// the hooks each of their files costs a round trip to the loader thread (LangGraph: ~300 ms
// plain, ~800 ms through tsx, most of the start-up). The sources later get the same modules.
await import('@langchain/langgraph');
await import('@langchain/core/messages');
const { register } = await import('tsx/esm/api');
register();
await import('../src/main.ts');
