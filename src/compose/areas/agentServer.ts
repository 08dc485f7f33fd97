// The agent server as an area: assistants, threads, runs, crons, the store, MCP and the
// protocol over the ports. What A2A is built on (the domain API as each caller sees it, the
// runs' ends) goes with it, for composeA2A.
import type { Area, AreaPorts } from '../area.ts';
import { handlerRegistry } from '../../runtime/handler.ts';
import { createAgentServer, type AgentServerArea } from './agentServerServices.ts';

/** The agent server composed: its area, and what the A2A area is built on. */
export type ComposedAgentServer = Area & Pick<AgentServerArea, 'serviceFor' | 'ownerOf' | 'discoveryServiceFor' | 'runEnds'>;

export async function composeAgentServer(ports: AreaPorts): Promise<ComposedAgentServer> {
  const { handlers, modules, reload, serviceFor, ownerOf, discoveryServiceFor, runEnds } = await createAgentServer(ports);
  return { name: 'agent-server', handlers: handlerRegistry(handlers), modules, reload, serviceFor, ownerOf, discoveryServiceFor, runEnds };
}
