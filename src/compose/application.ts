// Composition root of real mode: the configuration picked the backend (backend.ts) and the
// server made what every area shares; here the areas are composed from those ports and merged
// into the application the server runs. Each area's handlers are typed by the generated
// interfaces (a missing or misspelt handler is a compile error in its composer); the server
// also refuses to start on one (see runtime/server.ts).
import { AREAS, mergeAreas, type AppFactory, type Area, type AreaName } from './area.ts';
import { composeControlPlane } from './areas/controlPlane.ts';
import { composeAgentServer } from './areas/agentServer.ts';
import { composeA2A } from './areas/a2a.ts';

/** The application of the named areas (A2A is built on the agent server, which comes with it). */
export function composeApplication(names: readonly AreaName[] = AREAS): AppFactory {
  return async (ports) => {
    const areas: Area[] = [];
    if (names.includes('control-plane')) areas.push(await composeControlPlane(ports));
    if (names.includes('agent-server') || names.includes('a2a')) {
      const agentServer = await composeAgentServer(ports);
      areas.push(agentServer);
      if (names.includes('a2a')) areas.push(await composeA2A(ports, agentServer));
    }
    return mergeAreas(areas);
  };
}

export const createApplication: AppFactory = composeApplication();
