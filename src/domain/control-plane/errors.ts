// Expected failures of control-plane operations. The domain names the kind; the HTTP layer
// turns it into 400/404/409 with `{detail}`.
export type FailureKind = 'invalid' | 'not_found' | 'conflict';

export class ControlPlaneError extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'ControlPlaneError';
  }
}

export const invalid = (detail: string) => new ControlPlaneError('invalid', detail);
export const conflict = (detail: string) => new ControlPlaneError('conflict', detail);
export const deploymentNotFound = (id: string) => new ControlPlaneError('not_found', `Deployment ID ${id} not found.`);
export const revisionNotFound = (id: string) => new ControlPlaneError('not_found', `Revision ID ${id} not found.`);
export const providerNotFound = (id: string) => new ControlPlaneError('not_found', `Provider ID ${id} not found.`);
