// Starts the static schema worker from the sources (a clone, the tests): tsx's loader does
// not reach worker threads, so the worker registers its own. The compiled package starts
// staticSchemaWorker.js directly.
const { register } = await import('tsx/esm/api');
register();
await import('./staticSchemaWorker.ts');
