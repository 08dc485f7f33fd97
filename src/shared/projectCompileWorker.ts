// The thread that compiles the project's TypeScript for `serve` (projectCompile.ts): esbuild's
// JavaScript side (starting its service, encoding each build, decoding its answers, the plugin's
// resolve callbacks) cost the main thread ~60 ms of its start; here it costs the other core.
import { parentPort, workerData } from 'node:worker_threads';
import { compileProject } from './projectCompile.ts';

parentPort!.postMessage(await compileProject(workerData as string[]));
