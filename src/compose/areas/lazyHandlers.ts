// An area's handlers whose modules load at the area's first request. The control plane's
// handlers and the domain functions only they call (~50 modules: deployments, revisions and
// their manifests, listeners, providers, agent auth's pages) are read by no request a start
// answers first, and imported with the rest of the area they cost every start tens of
// milliseconds before its first 200. What can refuse a start (the auth service's key, the
// deployer's settings, the revision engine) stays composed before the server answers; only
// the handlers, which make closures over it and can fail at nothing, load later: once the
// server answers (controlPlaneServices.ts begins it), or at a request that comes first.
import type { OperationHandler } from '../../runtime/handler.ts';

/**
 * One handler per operation, each loading the real ones (once, shared by the first calls) and
 * from then on calling its own: after the load one property read more than the handler itself.
 * A load that lacks an operation's handler fails that call and every later one, naming it.
 * `load` begins the load without a request (once the server answers, say) and resolves with it.
 */
export function lazyHandlers<H extends { [K in keyof H]: OperationHandler }>(
  operationIds: readonly (keyof H & string)[],
  load: () => Promise<H>,
): { handlers: H; load: () => Promise<H> } {
  let loaded: H | undefined;
  let loading: Promise<H> | undefined;
  const loadOnce = () =>
    (loading ??= load().then((handlers) => {
      const missing = operationIds.filter((id) => typeof handlers[id] !== 'function');
      if (missing.length) throw new Error(`no handler for operationId(s): ${missing.join(', ')}`);
      loaded = handlers;
      return handlers;
    }));
  const handlers = {} as Record<string, OperationHandler>;
  for (const id of operationIds) {
    const forward: OperationHandler = (request, ctx) => (loaded ? loaded[id](request, ctx) : loadOnce().then((real) => real[id](request, ctx)));
    handlers[id] = forward;
  }
  return { handlers: handlers as H, load: loadOnce };
}
