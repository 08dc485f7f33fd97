// A2A: the JSON-RPC methods (spec/a2a.openrpc.json) served by the a2aRpc operation on
// POST /a2a/{assistant_id}, and the agent card operation (getAgentCard); both operations
// are in spec/agent-server.openapi.yaml.
import type { A2AMethods } from '../../../generated/a2a/methods.gen.ts';
import type { A2AV1Methods } from '../../../generated/a2a-v1/methods.gen.ts';
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { OwnerOf, ServiceFor } from '../agent-server/owner.ts';
import type { A2ATasksRepository } from '../../domain/ports/a2aTasksRepository.ts';
import type { PushConfigsRepository } from '../../domain/ports/pushConfigsRepository.ts';
import { A2ATaskService } from '../../domain/a2a/taskService.ts';
import { TaskPushConfigs } from '../../domain/a2a/pushConfigs.ts';
import { webhookUrlProblem, type WebhookUrlPolicy } from '../../domain/webhooks/webhookPolicy.ts';
import { rpcDispatcher } from '../../runtime/api.ts';
import type { BackgroundModule } from '../../runtime/application.ts';
import type { AppFactoryDeps } from '../deps.ts';
import type { RequestContext } from '../../runtime/context.ts';
import { methodRegistry } from '../../runtime/jsonrpc.ts';
import { PACKAGE_VERSION } from '../../runtime/packageRoot.ts';
import { cardSecurity } from '../../domain/a2a/cardSecurity.ts';
import { extendedCardOf, getAgentCard, getAgentCardJwks, getAgentCardLegacy } from './getAgentCard.ts';
import { messageMethods } from './messages.ts';
import { a2aRpc, type A2AContext } from './rpc.ts';
import { taskMethods } from './tasks.ts';
import { v1InvalidParams, v1Methods } from './v1Methods.ts';
import { v1Operations, type V1Operations, type V1Scope } from './v1/operations.ts';
import { jsonRpcOnly, type A2AInterfaces } from './v1/card.ts';
import { toV1Task } from './v1/wire.ts';
import { pushOnRunEnd } from '../../domain/a2a/pushDelivery.ts';
import type { RunEnded } from '../../domain/agent/runEngine.ts';
import type { AgentService } from '../../domain/agent/service.ts';
import type { WebhookNotifier } from '../../domain/webhooks/webhookNotifier.ts';

export interface A2AArea {
  methods: A2AMethods<A2AContext>;
  handlers: Pick<AgentServerHandlers<RequestContext>, 'getAgentCard' | 'getAgentCardLegacy' | 'getAgentCardJwks' | 'a2aRpc'>;
  modules: BackgroundModule[];
  /** What the other v1.0 bindings (HTTP+JSON, gRPC) call: the operations, on the scope of a request to an assistant. */
  v1: { operations: V1Operations; scope(ctx: RequestContext, assistant: Assistant): V1Scope };
}

/** Where the tasks and their push configs are kept (built by the composition root). */
export interface A2ARepositories {
  tasks: A2ATasksRepository;
  pushConfigs: PushConfigsRepository;
}

export interface A2AOptions {
  /** The interfaces the server serves, in order of preference (default: JSON-RPC at 1.0 and 0.3). */
  interfaces?: A2AInterfaces;
  /** Why a push config's URL would be refused at delivery for its address (a literal private or metadata host), or null. */
  pushAddressProblem?: (url: string) => string | null;
  /** The domain API as a card request sees it (discoveryOwner: anonymous whatever auth is in force); default `serviceFor`. */
  cardServiceFor?: ServiceFor;
  /** Where runs end: push notifications are sent from there (without it, configs are kept but nothing is sent). */
  runEnds?: { listen(listener: (ended: RunEnded) => void): void; forOwner(owner: string): AgentService; webhooks: WebhookNotifier };
}

/** Tasks are kept apart by owner as the agent server's threads are (see agent-server/owner.ts). */
export async function createA2A(
  deps: AppFactoryDeps,
  repositories: A2ARepositories,
  serviceFor: ServiceFor,
  ownerOf: OwnerOf,
  options: A2AOptions = {},
): Promise<A2AArea> {
  const { tasks: store, pushConfigs: pushStore } = repositories;
  // a push config's URL passes the rules a run's webhook does (webhooks.url in agentplane.json)
  const webhookRules = (deps.config.project.webhooks as { url?: WebhookUrlPolicy } | undefined)?.url;
  // and the address rules of its delivery, where the URL names an address: refused when set, not at each delivery
  const urlProblem = (url: string) => webhookUrlProblem(url, webhookRules) ?? options.pushAddressProblem?.(url) ?? null;
  let extendedCard: ReturnType<typeof extendedCardOf>;
  const scopeFor = (ctx: RequestContext) => {
    const tasks = new A2ATaskService(serviceFor(ctx), store, ownerOf(ctx), ctx.user?.identity);
    const card = extendedCard;
    return {
      tasks,
      push: new TaskPushConfigs(tasks, pushStore, urlProblem),
      ...(card ? { extendedCard: (assistant: Assistant) => card(assistant, ctx) } : {}),
    };
  };
  const framing = { validateResults: deps.config.validateResponses, log: deps.log, maxDepth: deps.config.maxBodyDepth };
  const methods: A2AMethods<A2AContext> = { ...messageMethods(), ...taskMethods() };
  const dispatcher = await rpcDispatcher(methodRegistry<A2AContext, A2AMethods<A2AContext>>(methods), framing);
  const dispatcherV1 = await rpcDispatcher(methodRegistry<A2AContext, A2AV1Methods<A2AContext>>(v1Methods()), framing, 'a2a-v1', {
    invalidParams: v1InvalidParams,
    streamErrorsAsJson: true,
  });
  options.runEnds?.listen(
    pushOnRunEnd({
      tasks: store,
      configs: pushStore,
      agentFor: options.runEnds.forOwner,
      send: (delivery) => options.runEnds!.webhooks.send(delivery),
      // the HTTP+JSON shape of a StreamResponse, whatever binding registered the config (A2A §3.5.3)
      render: (task) => ({ task: toV1Task(task) }),
      log: deps.log.child({ area: 'a2a-push' }),
    }),
  );
  // jose (and canonicalize) load only with a signing key: ~47 modules a start without one need not load
  const signer = deps.config.a2aSigning ? (await import('./v1/cardSigning.ts')).cardSigner(deps.config.a2aSigning) : undefined;
  const interfaces = options.interfaces ?? jsonRpcOnly;
  const security = cardSecurity({
    apiKeys: deps.config.agentServerAuth,
    customAuth: typeof deps.config.project.auth?.path === 'string' && !deps.config.mock,
    configured: deps.config.project.a2a?.security_schemes,
  });
  const extension = deps.config.project.a2a?.extended_card;
  const cards = { version: PACKAGE_VERSION, interfaces, ...(signer ? { signer } : {}), ...(security ? { security } : {}), ...(extension ? { extension } : {}) };
  extendedCard = extendedCardOf(options.cardServiceFor ?? serviceFor, cards);
  return {
    methods,
    handlers: {
      getAgentCard: getAgentCard(options.cardServiceFor ?? serviceFor, deps.config.project, cards),
      getAgentCardLegacy: getAgentCardLegacy(options.cardServiceFor ?? serviceFor, deps.config.project, cards),
      getAgentCardJwks: getAgentCardJwks(signer),
      a2aRpc: a2aRpc(serviceFor, scopeFor, { '0.3': dispatcher, '1.0': dispatcherV1 }),
    },
    modules: [],
    v1: { operations: v1Operations, scope: (ctx, assistant) => ({ assistant, ...scopeFor(ctx), signal: ctx.signal }) },
  };
}
