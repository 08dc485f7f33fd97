// Composition root of real mode: builds each area's services and binds its handlers.
// The registries are typed by the generated interfaces, so a missing or misspelt handler is
// a compile error; the server also refuses to start on one (see runtime/server.ts).
// Which backend the areas run on is picked in backend.ts.
import type { Handlers, RpcMethods } from '../../generated/index.gen.ts';
import type { A2AContext } from '../handlers/a2a/rpc.ts';
import type { RequestContext } from '../runtime/context.ts';
import type { AppFactory } from '../handlers/deps.ts';
import { handlerRegistry } from '../runtime/handler.ts';
import { methodRegistry } from '../runtime/jsonrpc.ts';
import { createControlPlane } from './controlPlane.ts';
import { createAgentServer } from './agentServer.ts';
import { addressCheck, literalHostProblem, type AddressRule } from '../adapters/webhooks/webhookAddresses.ts';
import { createA2A } from '../handlers/a2a/index.ts';
import { CollectionA2ATasks } from '../adapters/embedded/collectionA2ATasks.ts';
import { CollectionPushConfigs } from '../adapters/embedded/collectionPushConfigs.ts';
import { a2aBindings, servedInterfaces } from '../handlers/a2a/bindings.ts';
import { OAuth4WebApiClient } from '../adapters/oauth/oauth4webapiClient.ts';
import { graphAuthentication } from '../domain/control-plane/agentAuth/graphAuthentication.ts';
import { installAgentAuth } from '../shared/agentAuthGlobal.ts';
import { projectApiUrl } from '../shared/projectGlobals.ts';
import { DEV_AUTHORIZE_PATH, DEV_CLIENT_ID, DEV_TOKEN_PATH, DevAuthorizationServer } from '../adapters/oauth/devAuthorizationServer.ts';
import { withDevProvider } from '../adapters/oauth/withDevProvider.ts';
import { requestOrigin } from '../runtime/origin.ts';

export const createApplication: AppFactory = async (deps) => {
  const networkOAuth = new OAuth4WebApiClient({ allowHttp: deps.config.agentAuth.allowHttp, allowedNetworks: deps.config.agentAuth.allowedNetworks });
  // the development provider (AGENTPLANE_DEV_OAUTH): its pages on this server, its tokens issued in process
  const { publicUrl, trustProxy } = deps.config;
  const devProvider =
    deps.config.agentAuth.devProvider && deps.config.controlPlane
      ? new DevAuthorizationServer((req) => [publicUrl ? new URL(publicUrl).origin : requestOrigin(req.headers, trustProxy)])
      : null;
  const oauth = devProvider ? withDevProvider(networkOAuth, devProvider) : networkOAuth;
  const standIn = devProvider ? { authPath: DEV_AUTHORIZE_PATH, tokenPath: DEV_TOKEN_PATH, clientId: DEV_CLIENT_ID } : null;
  const controlPlane = await createControlPlane(deps, { oauth, standIn });
  // graphs reach the auth service in process (sdk/auth.ts) when this server runs the control plane
  if (deps.config.controlPlane) {
    const { agentAuth } = deps.config;
    installAgentAuth(
      graphAuthentication({
        flows: controlPlane.agentAuth.flows,
        runOwner: async (runId) => (await deps.store.collection<{ owner?: string }>('runs').get(runId))?.owner,
        tenant: agentAuth.graphTenant,
        baseUrl: () => publicUrl ?? projectApiUrl(),
      }),
    );
  }
  const agentServer = await createAgentServer(deps);
  // the address rules push deliveries connect by (webhooks.url), for the URLs that name an address
  const deliveryAddresses = addressCheck((deps.config.project.webhooks as { url?: AddressRule } | undefined)?.url);
  const a2a = await createA2A(
    deps,
    { tasks: new CollectionA2ATasks(deps.store), pushConfigs: new CollectionPushConfigs(deps.store) },
    agentServer.serviceFor,
    agentServer.ownerOf,
    {
      runEnds: agentServer.runEnds,
      interfaces: servedInterfaces(deps.grpcPort),
      cardServiceFor: agentServer.discoveryServiceFor,
      pushAddressProblem: (url) => literalHostProblem(url, deliveryAddresses),
    },
  );
  const bindings = a2aBindings(a2a.v1.scope, agentServer.serviceFor, deps.config.project);
  // `satisfies` makes the compiler check completeness here as well as in each area
  const handlers = { ...controlPlane.handlers, ...agentServer.handlers, ...a2a.handlers, ...bindings.handlers } satisfies Handlers<RequestContext>;
  return {
    handlers: handlerRegistry(handlers),
    methods: methodRegistry<A2AContext, RpcMethods<A2AContext>>(a2a.methods),
    modules: [...controlPlane.modules, ...agentServer.modules, ...a2a.modules],
    grpc: bindings.grpc,
    ...(devProvider ? { routes: devProvider.routes } : {}),
    reload: () => agentServer.reload(),
  };
};
