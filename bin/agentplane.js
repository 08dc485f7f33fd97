#!/usr/bin/env node
// The CLI entry point. Installed from npm it runs the compiled JavaScript in dist/ (the
// package ships no TypeScript of its own; tsx is only used to load a project's TypeScript
// graphs). In a clone, where src/ exists, it runs the sources through tsx instead, so a
// change to src/ takes effect without a build step that could go stale.
import fs from 'node:fs';

if (fs.existsSync(new URL('../src/main.ts', import.meta.url))) {
  // The big plain-JavaScript dependencies are imported first, before tsx's hooks exist:
  // through the hooks each of their files costs a round trip to the loader thread
  // (LangGraph: ~300 ms plain, ~800 ms through tsx, most of the start-up).
  await import('@langchain/langgraph');
  await import('@langchain/core/messages');
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
} else {
  await import('../dist/src/main.js');
}
