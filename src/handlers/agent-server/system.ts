// GET /ok — liveness; GET /info — version and flags, as upstream.
import { createRequire } from 'node:module';
import type { ServerInfo } from '../../../generated/agent-server/types.gen.ts';
import type { AgentServerAreaHandlers } from './area.ts';

export const health: AgentServerAreaHandlers['health'] = async () => ({ status: 200, body: { ok: true } });

const require = createRequire(import.meta.url);
const versionOf = (pkg: string) => (require(pkg) as { version: string }).version;

export function infoHandler(switches: { a2a: boolean; mcp: boolean }): Pick<AgentServerAreaHandlers, 'getInfo'> {
  const info: ServerInfo = Object.freeze({
    version: versionOf('../../../package.json'),
    langgraph_js_version: versionOf('@langchain/langgraph/package.json'),
    context: 'js',
    flags: { assistants: true, crons: true, langsmith: false, langsmith_tracing_replicas: false, store: true, a2a: switches.a2a, mcp: switches.mcp },
    metadata: { server: 'agentplane' },
  }) as ServerInfo;
  return { getInfo: async () => ({ status: 200, body: info }) };
}
