#!/usr/bin/env node
// Runs the TypeScript sources through tsx's loader (no build step to go stale).
import { register } from 'tsx/esm/api';
register();
await import('../src/runtime/main.ts');
