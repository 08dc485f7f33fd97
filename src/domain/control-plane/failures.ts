// The control plane's expected failures, as domain outcomes (see ../outcome.ts); the
// handlers map their kinds to 400/404/409 in one table (src/handlers/control-plane/failures.ts).
import { fail } from '../outcome.ts';

/** A broken rule: the first one found is the answer. */
export type Broken = ReturnType<typeof invalid>;

export const invalid = (detail: string) => fail('invalid', detail);
export const conflict = (detail: string) => fail('conflict', detail);
export const deploymentNotFound = (id: string) => fail('not_found', `Deployment ID ${id} not found.`);
export const revisionNotFound = (id: string) => fail('not_found', `Revision ID ${id} not found.`);
export const providerNotFound = (id: string) => fail('not_found', `Provider ID ${id} not found.`);
export const listenerNotFound = (id: string) => fail('not_found', `Listener ID ${id} not found.`);
