// The control plane as an area: deployments, revisions, OAuth providers and agent auth over the
// ports, with the development OAuth provider when this server offers it (its pages are operations
// of the contract), and the graphs' way to the auth service in process.
import type { Area, AreaPorts } from '../area.ts';
import { handlerRegistry } from '../../runtime/handler.ts';
import { createControlPlane } from './controlPlaneServices.ts';
import { lazyOAuthClient } from './lazyOAuthClient.ts';
import { DEV_AUTHORIZE_PATH, DEV_CLIENT_ID, DEV_TOKEN_PATH, DevAuthorizationServer } from '../../adapters/oauth/devAuthorizationServer.ts';
import { withDevProvider } from '../../adapters/oauth/withDevProvider.ts';
import { graphAuthentication } from '../../domain/control-plane/agentAuth/graphAuthentication.ts';
import { installAgentAuth } from '../../shared/agentAuthGlobal.ts';
import { projectApiUrl } from '../../shared/projectGlobals.ts';

export async function composeControlPlane(ports: AreaPorts): Promise<Area> {
  const { config } = ports;
  // oauth4webapi loads at the client's first call (lazyOAuthClient.ts), not with every start
  const networkOAuth = lazyOAuthClient({ allowHttp: config.agentAuth.allowHttp, allowedNetworks: config.agentAuth.allowedNetworks });
  // the development provider (AGENTPLANE_DEV_OAUTH): its pages on this server (its operations: devProviderHandlers), its tokens issued in process
  const { publicUrl } = config;
  const devProvider = config.agentAuth.devProvider && config.controlPlane ? new DevAuthorizationServer() : null;
  const oauth = devProvider ? withDevProvider(networkOAuth, devProvider) : networkOAuth;
  const standIn = devProvider ? { authPath: DEV_AUTHORIZE_PATH, tokenPath: DEV_TOKEN_PATH, clientId: DEV_CLIENT_ID } : null;
  const controlPlane = await createControlPlane(ports, { oauth, standIn, devProvider });
  // graphs reach the auth service in process (sdk/auth.ts) when this server runs the control plane
  if (config.controlPlane) {
    const { agentAuth } = config;
    installAgentAuth(
      graphAuthentication({
        flows: controlPlane.agentAuth.flows,
        runOwner: async (runId) => (await ports.store.collection<{ owner?: string }>('runs').get(runId))?.owner,
        tenant: agentAuth.graphTenant,
        baseUrl: () => publicUrl ?? projectApiUrl(),
      }),
    );
  }
  return {
    name: 'control-plane',
    handlers: handlerRegistry(controlPlane.handlers),
    modules: controlPlane.modules,
  };
}
