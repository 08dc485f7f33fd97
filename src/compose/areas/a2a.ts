// A2A as an area, built on the agent server: the JSON-RPC methods (spec/a2a.openrpc.json)
// served by the a2aRpc operation on POST /a2a/{assistant_id}, the agent card operations, and
// the v1.0 bindings beside JSON-RPC (HTTP+JSON, gRPC); the operations are in
// spec/agent-server.openapi.yaml. Tasks are kept apart by owner as the agent server's threads are
// (handlers/agent-server/owner.ts).
import type { A2AMethods } from '../../../generated/a2a/methods.gen.ts';
import type { A2AV1Methods } from '../../../generated/a2a-v1/methods.gen.ts';
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { A2AOperationId } from '../../handlers/agent-server/area.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { Area, AreaPorts } from '../area.ts';
import type { ComposedAgentServer } from './agentServer.ts';
import { A2ATaskService } from '../../domain/a2a/taskService.ts';
import { TaskPushConfigs } from '../../domain/a2a/pushConfigs.ts';
import { pushOnRunEnd } from '../../domain/a2a/pushDelivery.ts';
import { cardSecurity } from '../../domain/a2a/cardSecurity.ts';
import { webhookUrlProblem, type WebhookUrlPolicy } from '../../domain/webhooks/webhookPolicy.ts';
import { addressCheck, literalHostProblem, type AddressRule } from '../../adapters/webhooks/webhookAddresses.ts';
import { CollectionA2ATasks } from '../../adapters/embedded/collectionA2ATasks.ts';
import { CollectionPushConfigs } from '../../adapters/embedded/collectionPushConfigs.ts';
import { rpcDispatcher } from '../../runtime/api.ts';
import { handlerRegistry } from '../../runtime/handler.ts';
import { methodRegistry } from '../../runtime/transports/jsonrpc.ts';
import { PACKAGE_VERSION } from '../../runtime/packageRoot.ts';
import { extendedCardOf, getAgentCard, getAgentCardJwks, getAgentCardLegacy } from '../../handlers/a2a/getAgentCard.ts';
import { messageMethods } from '../../handlers/a2a/messages.ts';
import { a2aRpc, type A2AContext } from '../../handlers/a2a/rpc.ts';
import { taskMethods } from '../../handlers/a2a/tasks.ts';
import { v1InvalidParams, v1Methods } from '../../handlers/a2a/v1Methods.ts';
import { toV1Task } from '../../handlers/a2a/v1/wire.ts';
import { a2aBindings, servedInterfaces } from '../../handlers/a2a/bindings.ts';

export async function composeA2A(ports: AreaPorts, agentServer: ComposedAgentServer): Promise<Area> {
  const { config, log } = ports;
  const { serviceFor, ownerOf, runEnds } = agentServer;
  // the card is read as a discovery request sees the domain (anonymous whatever auth is in force)
  const cardServiceFor = agentServer.discoveryServiceFor;
  const tasks = new CollectionA2ATasks(ports.store);
  const pushConfigs = new CollectionPushConfigs(ports.store);
  // a push config's URL passes the rules a run's webhook does (webhooks.url in agentplane.json)
  const webhookRules = (config.project.webhooks as { url?: WebhookUrlPolicy } | undefined)?.url;
  // and the address rules of its delivery, where the URL names an address: refused when set, not at each delivery
  const deliveryAddresses = addressCheck((config.project.webhooks as { url?: AddressRule } | undefined)?.url);
  const urlProblem = (url: string) => webhookUrlProblem(url, webhookRules) ?? literalHostProblem(url, deliveryAddresses) ?? null;
  let extendedCard: ReturnType<typeof extendedCardOf> | undefined;
  const scopeFor = (ctx: RequestContext) => {
    const taskService = new A2ATaskService(serviceFor(ctx), tasks, ownerOf(ctx), ctx.user?.identity);
    const card = extendedCard;
    return {
      tasks: taskService,
      push: new TaskPushConfigs(taskService, pushConfigs, urlProblem),
      ...(card ? { extendedCard: (assistant: Assistant) => card(assistant, ctx) } : {}),
    };
  };
  const framing = { validateResults: config.validateResponses, log, maxDepth: config.maxBodyDepth };
  const methods: A2AMethods<A2AContext> = { ...messageMethods(), ...taskMethods() };
  const dispatcher = await rpcDispatcher(methodRegistry<A2AContext, A2AMethods<A2AContext>>(methods), framing);
  const dispatcherV1 = await rpcDispatcher(methodRegistry<A2AContext, A2AV1Methods<A2AContext>>(v1Methods()), framing, 'a2a-v1', {
    invalidParams: v1InvalidParams,
    streamErrorsAsJson: true,
  });
  // push notifications are sent where runs end
  runEnds.listen(
    pushOnRunEnd({
      tasks,
      configs: pushConfigs,
      agentFor: runEnds.forOwner,
      send: (delivery) => runEnds.webhooks.send(delivery),
      // the HTTP+JSON shape of a StreamResponse, whatever binding registered the config (A2A §3.5.3)
      render: (task) => ({ task: toV1Task(task) }),
      log: log.child({ area: 'a2a-push' }),
    }),
  );
  // jose (and canonicalize) load only with a signing key: ~47 modules a start without one need not load
  const signer = config.a2aSigning ? (await import('../../handlers/a2a/v1/cardSigning.ts')).cardSigner(config.a2aSigning) : undefined;
  const security = cardSecurity({
    apiKeys: config.agentServerAuth,
    customAuth: typeof config.project.auth?.path === 'string' && !config.mock,
    configured: config.project.a2a?.security_schemes,
  });
  const extension = config.project.a2a?.extended_card;
  const cards = {
    version: PACKAGE_VERSION,
    // the interfaces served, in order of preference: gRPC only while its port serves
    interfaces: servedInterfaces(ports.grpcPort),
    ...(signer ? { signer } : {}),
    ...(security ? { security } : {}),
    ...(extension ? { extension } : {}),
  };
  extendedCard = extendedCardOf(cardServiceFor, cards);
  // the v1.0 bindings beside JSON-RPC run the same operations, on the scope of a request to an assistant
  const bindings = a2aBindings((ctx, assistant) => ({ assistant, ...scopeFor(ctx), signal: ctx.signal }), serviceFor, config.project);
  const handlers = {
    getAgentCard: getAgentCard(cardServiceFor, config.project, cards),
    getAgentCardLegacy: getAgentCardLegacy(cardServiceFor, config.project, cards),
    getAgentCardJwks: getAgentCardJwks(signer),
    a2aRpc: a2aRpc(serviceFor, scopeFor, { '0.3': dispatcher, '1.0': dispatcherV1 }),
    ...bindings.handlers,
  } satisfies Pick<AgentServerHandlers<RequestContext>, Extract<keyof AgentServerHandlers<RequestContext>, A2AOperationId>>;
  return {
    name: 'a2a',
    handlers: handlerRegistry(handlers),
    methods: methodRegistry<A2AContext, A2AMethods<A2AContext>>(methods),
    modules: [],
    ...(bindings.grpc ? { grpc: bindings.grpc } : {}),
  };
}
