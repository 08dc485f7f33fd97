// GET /ok — liveness, and with check_db the database too; GET /info — version and flags, as upstream.
import type { ServerInfo } from '../../../generated/agent-server/types.gen.ts';
import { PACKAGE_VERSION } from '../../runtime/packageRoot.ts';
import type { Store } from '../../domain/ports/store.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { flag } from './replies.ts';
import { langGraphReleaseNear } from '../../shared/langGraphRelease.ts';

export function healthHandler(store: Store): Pick<AgentServerAreaHandlers, 'health'> {
  return {
    health: async ({ query }, ctx) => {
      if (flag(query.check_db)) {
        try {
          await store.ping();
        } catch (err) {
          // /ok is public: the detail names no host, the log says why
          ctx.log.warn('health check: the database did not answer', { err });
          return { status: 500, body: { detail: 'The database did not answer; the server log says why.' } };
        }
      }
      return { status: 200, body: { ok: true } };
    },
  };
}

export function infoHandler(switches: { a2a: boolean; mcp: boolean }, baseDir: string): Pick<AgentServerAreaHandlers, 'getInfo'> {
  const info: ServerInfo = Object.freeze({
    version: PACKAGE_VERSION,
    langgraph_js_version: langGraphReleaseNear(baseDir),
    context: 'js',
    flags: { assistants: true, crons: true, langsmith: false, langsmith_tracing_replicas: false, store: true, a2a: switches.a2a, mcp: switches.mcp },
    metadata: { server: 'agentplane' },
  }) as ServerInfo;
  return { getInfo: async () => ({ status: 200, body: info }) };
}
