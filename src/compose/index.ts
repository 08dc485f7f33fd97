// What src/compose offers the entry points, the tests and an embedder: the areas' composers,
// in-memory ports to build them over, and the ways to serve them.
export { AREAS, areaOperations, mergeAreas, type Area, type AreaName, type AreaPorts, type AppFactory, type RunBackend } from './area.ts';
export { composeControlPlane } from './areas/controlPlane.ts';
export { composeAgentServer, type ComposedAgentServer } from './areas/agentServer.ts';
export { composeA2A } from './areas/a2a.ts';
export { composeApplication, createApplication } from './application.ts';
export { memoryPorts, type MemoryPorts } from './ports/memory.ts';
export { createApi, type Api, type ApiAuth } from './api.ts';
export { startServer, type RunningServer, type StartServerOptions } from './server.ts';
