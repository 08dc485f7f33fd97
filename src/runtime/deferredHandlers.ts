// The handlers the HTTP pipeline is built on while the application is still being made: the
// server listens before the project's graphs load (LangGraph and tsx are most of a start), so
// a request that arrives meanwhile waits for the application and is then answered by its
// handler, exactly as it would have been later. The health check waits as well: a 200 from
// /ok means the server serves, its graphs loaded (deployers and readiness probes read it so).
import type { HandlerRegistry, OperationHandler } from './handler.ts';

/**
 * What a request that waited for the application gets when it could not be made: the server
 * is closing, so the caller is told so (a 503 naming the cause), not handed an internal error.
 */
export class StartFailed extends Error {
  constructor(cause: unknown) {
    super(`The server could not start: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StartFailed';
  }
}

export interface DeferredHandlers {
  /** One handler per operation, forwarding to the application's once it has arrived. */
  handlers: HandlerRegistry;
  /** The application's handlers: from now on every operation is answered by them. */
  arrive(handlers: HandlerRegistry): void;
  /** The application could not be made: requests waiting for it fail with StartFailed. */
  fail(err: unknown): void;
}

export function deferredHandlers(operationIds: readonly string[]): DeferredHandlers {
  let target: HandlerRegistry | undefined;
  let arrive!: (handlers: HandlerRegistry) => void;
  let fail!: (err: unknown) => void;
  const arrived = new Promise<HandlerRegistry>((resolve, reject) => {
    arrive = resolve;
    fail = (err) => reject(new StartFailed(err));
  });
  // a failed start closes the server; nobody need hear of the rejection but the waiting requests
  arrived.catch(() => undefined);
  const handlers: HandlerRegistry = {};
  for (const id of operationIds) {
    // after the arrival one property read and call more than the handler itself: no await added
    const forward: OperationHandler = (request, ctx) => (target ? target[id](request, ctx) : arrived.then((app) => app[id](request, ctx)));
    handlers[id] = forward;
  }
  return {
    handlers,
    arrive(app) {
      target = app;
      arrive(app);
    },
    fail,
  };
}
