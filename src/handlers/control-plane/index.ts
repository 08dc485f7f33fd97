// Control plane handlers (spec/control-plane.openapi.yaml).
import type { ControlPlaneHandlers } from '../../../generated/control-plane/operations.gen.ts';
import { handledOperationIds } from '../../../generated/control-plane/operations.gen.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AppFactoryDeps, BackgroundModule } from '../../runtime/server.ts';
import { notImplementedHandlers } from '../notImplemented.ts';

export async function createControlPlane(_deps: AppFactoryDeps): Promise<{ handlers: ControlPlaneHandlers<RequestContext>; modules: BackgroundModule[] }> {
  const handlers = notImplementedHandlers(handledOperationIds) as unknown as ControlPlaneHandlers<RequestContext>;
  return { handlers, modules: [] };
}
