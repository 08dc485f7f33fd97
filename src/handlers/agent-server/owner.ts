// Whom an agent-server request acts for: the owner its threads, runs, assistants, crons and
// store items belong to (see ownerOf in domain/agent/records.ts). With agent-server auth on
// that is the tenant the caller's key acts for; with it off there is one space, '', shared
// by every caller, and a key sent anyway changes nothing.
import type { AgentService, AgentServices } from '../../domain/agent/service.ts';
import type { RequestContext } from '../../runtime/context.ts';

export type OwnerOf = (ctx: RequestContext) => string;

/** The agent server as the caller of a request sees it. */
export type ServiceFor = (ctx: RequestContext) => AgentService;

export function requestOwner(agentServerAuth: boolean): OwnerOf {
  if (!agentServerAuth) return () => '';
  return (ctx) => {
    // auth on requires a key on every agent-server operation, so the runtime has set the tenant
    if (!ctx.tenantId) throw new Error(`${ctx.operationId} reached its handler without a tenant although agent-server auth is on`);
    return ctx.tenantId;
  };
}

/**
 * Whom a discovery request acts for (an A2A card, readable without credentials whatever auth is
 * in force): the caller's tenant when it sent a key; without one, the space no tenant owns (''),
 * where only the configured graphs' assistants are found, never a tenant's own.
 */
export function discoveryOwner(ownerOf: OwnerOf): OwnerOf {
  return (ctx) => (ctx.tenantId ? ownerOf(ctx) : '');
}

export function serviceFor(services: AgentServices, ownerOf: OwnerOf): ServiceFor {
  return (ctx) => services.forOwner(ownerOf(ctx), { user: ctx.user, headers: ctx.headers });
}
