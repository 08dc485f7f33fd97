// What makes a deployment remote-reconciled, and which revision statuses a listener that is
// not heard from leaves in doubt.
import type { RevisionStatus } from '../../../generated/control-plane/types.gen.ts';
import { IN_PROGRESS, NOT_STARTED } from './revisionStateMachine.ts';
import type { DeploymentRecord } from './records.ts';

/** Reconciled by a listener, not by the control plane's own deployer. */
export const isRemote = (deployment: DeploymentRecord): boolean => deployment.source_config.listener_id !== null;

/**
 * Statuses that describe what runs on the listener's machine right now: once the listener is
 * lost they are no longer known. Failed and skipped revisions stay as they were (nothing runs).
 */
export const inDoubtWhenLost = (status: RevisionStatus): boolean => status === 'DEPLOYED' || NOT_STARTED.has(status) || IN_PROGRESS.has(status);

/** Past its build phases: the build log gets no more lines. */
export const BUILD_PHASES_DONE = (status: RevisionStatus): boolean => !['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'UNKNOWN'].includes(status);
