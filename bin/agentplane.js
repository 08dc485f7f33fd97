#!/usr/bin/env node
// The CLI entry point. Installed from npm it runs the compiled JavaScript in dist/ (the
// package ships no TypeScript of its own; tsx is only used to load a project's TypeScript
// graphs). In a clone, where src/ exists, it runs dist/ too while dist/ was built from the
// sources as they are (compiledSources.js: it starts ~0.4 s sooner), and otherwise runs the
// sources through tsx, so a change to src/ takes effect without a build step.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compiledIsCurrent } from './compiledSources.js';

const root = fileURLToPath(new URL('..', import.meta.url));
if (fs.existsSync(new URL('../src/cli/main.ts', import.meta.url)) && !compiledIsCurrent(root)) {
  // The big plain-JavaScript dependencies are imported first, before tsx's hooks exist:
  // through the hooks each of their files costs a round trip to the loader thread
  // (LangGraph: ~300 ms plain, ~800 ms through tsx, most of the start-up).
  await import('@langchain/langgraph');
  await import('@langchain/core/messages');
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
} else if (fs.existsSync(new URL('../dist/bundle/main.js', import.meta.url))) {
  // dist/src/cli/main.js and what it imports, bundled by the build into a few modules (scripts/bundleServer.ts)
  await import('../dist/bundle/main.js');
} else {
  // a dist/ built before the build bundled the server
  await import('../dist/src/cli/main.js');
}
