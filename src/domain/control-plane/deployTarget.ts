// Where a deployment runs, as the revision engine (revisionEngine.ts) sees it: the target builds
// a revision, deploys it, brings back what served after a restart, removes a deployment and
// reads its logs. The lifecycle (statuses, order, retries, locks, the deployment's side) is
// the engine's alone; a target only does the work. Targets: simulated (nothing runs), local
// (processes on this machine), container (podman pods) and the Kubernetes ones (a cluster, or
// podman playing the manifests).
import type { RevisionLogs } from '../../../generated/control-plane/types.gen.ts';
import type { DeploymentRecord, RevisionRecord } from './records.ts';
import type { LogRequest } from './deployer/revisionLogs.ts';

export type LogKind = 'build' | 'deploy';

/** The commit built, or why the build failed (a status_message; the engine masks its secrets). */
export type BuildOutcome = { ok: true; commitSha?: string | null } | { ok: false; reason: string; commitSha?: string | null };

/** Serving, at the target's address for the deployment (null: none of its own), or why not. */
export type DeployOutcome = { ok: true; url: string | null } | { ok: false; reason: string };

/** What the engine offers a target: work it asks for between revisions (a pod removed behind its back). */
export interface TargetHost {
  /** Queues a restore of what serves the deployment, in the deployment's order of jobs. */
  restoreLater(deploymentId: string): void;
}

export interface DeployTarget {
  /** Whether github revisions are built here (the Kubernetes targets run images only). */
  readonly builds: boolean;
  /** Before the engine resumes its work: log where deployments run, start supervising. */
  start?(host: TargetHost): Promise<void> | void;
  /** Once the engine's jobs have settled on stop. */
  release?(): Promise<void>;
  /** Builds the revision (its status is BUILDING). */
  build(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<BuildOutcome>;
  /** Replaces what serves the deployment with this revision (its status is DEPLOYING). */
  deploy(deployment: DeploymentRecord, revision: RevisionRecord, signal: AbortSignal): Promise<DeployOutcome>;
  /** After a restart: what served the deployment (READY, with an active revision) serves again, adopted or started anew. */
  restore?(deploymentId: string, signal: AbortSignal): Promise<void>;
  /** Removes everything of a deployment that is being deleted, but its records (the engine's). */
  remove(deploymentId: string, deployment: DeploymentRecord | undefined): Promise<void>;
  /** A page of the revision's build or server log, secrets masked. */
  logs(revision: RevisionRecord, deployment: DeploymentRecord | undefined, kind: LogKind, request: LogRequest): Promise<RevisionLogs>;
}
