// The revision's state machine, with no I/O: which work a status asks of the deploy target,
// and the status the revision moves to once that step is done. The revision engine
// (revisionEngine.ts) reads the record, asks `workAt`, has the target do it, asks `nextStep`,
// and stores what it answers, whatever target runs the deployment:
//
//   CREATING        → QUEUED                           (noted)
//   QUEUED          → AWAITING_BUILD                   (noted; a source built here: github, not a redeploy, a target that builds)
//   QUEUED          → AWAITING_DEPLOY                  (noted; anything else: an image, a redeploy)
//   AWAITING_BUILD  → BUILDING                         (noted)
//   BUILDING        → AWAITING_DEPLOY, commit sha       (built ok)
//   BUILDING        → BUILD_FAILED, reason, commit sha  (built, failed)
//   AWAITING_BUILD, BUILDING → AWAITING_DEPLOY         (noted; found so while nothing is built here: a target of images)
//   AWAITING_DEPLOY → DEPLOYING                        (noted)
//   DEPLOYING       → DEPLOYED                         (deployed ok)
//   DEPLOYING       → DEPLOY_FAILED, reason            (deployed, failed)
//   finished        → (unchanged)                      (any outcome: a finished revision stays)
//
// Every other (status, outcome) pair is refused (null): a build outcome where nothing was
// built, a deploy outcome before DEPLOYING. Supersession (SKIPPED) is newRevision.ts's: it
// happens to revisions that have not started, in the request that stores the newer one.
import type { RevisionStatus } from '../../../generated/control-plane/types.gen.ts';

export const REVISION_STATUSES = [
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'DEPLOYED',
  'SKIPPED',
  'INTERRUPTED',
  'UNKNOWN',
] as const satisfies readonly RevisionStatus[];

/** Statuses during which a revision holds its deployment's single build/deploy slot. */
export const IN_PROGRESS: ReadonlySet<RevisionStatus> = new Set(['AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING']);
/** Statuses a newer revision supersedes (the revision has not started yet). */
export const NOT_STARTED: ReadonlySet<RevisionStatus> = new Set(['CREATING', 'QUEUED']);
export const UNFINISHED: readonly RevisionStatus[] = [...NOT_STARTED, ...IN_PROGRESS];

export const isFinished = (status: RevisionStatus): boolean => !NOT_STARTED.has(status) && !IN_PROGRESS.has(status);

/** What the engine knows of the revision and its deployment when it asks. */
export interface RevisionFacts {
  /** The revision is built here: a github source, not a redeploy, on a target that builds. */
  builds: boolean;
}

/** What the step just done came to. */
export type StepOutcome =
  /** A step with no work: the status only moves on. */
  | { kind: 'noted' }
  | { kind: 'built'; ok: true; commitSha?: string | null }
  | { kind: 'built'; ok: false; reason: string; commitSha?: string | null }
  | { kind: 'deployed'; ok: true }
  | { kind: 'deployed'; ok: false; reason: string };

export interface Step {
  status: RevisionStatus;
  /** null clears the message; a finished revision keeps its own (`keep`). */
  status_message: string | null | 'keep';
  repo_commit_sha?: string;
}

/** The work a revision in `status` asks of the target before it can move on. */
export function workAt(status: RevisionStatus, facts: RevisionFacts): 'build' | 'deploy' | null {
  if (status === 'BUILDING' && facts.builds) return 'build';
  if (status === 'DEPLOYING') return 'deploy';
  return null;
}

/** The revision's next status after `outcome` in `status`; null for a pair that cannot happen. */
export function nextStep(status: RevisionStatus, facts: RevisionFacts, outcome: StepOutcome): Step | null {
  if (isFinished(status)) return { status, status_message: 'keep' };
  const work = workAt(status, facts);
  const expected = work === 'build' ? 'built' : work === 'deploy' ? 'deployed' : 'noted';
  if (outcome.kind !== expected) return null;
  switch (status) {
    case 'CREATING':
      return { status: 'QUEUED', status_message: null };
    case 'QUEUED':
      return { status: facts.builds ? 'AWAITING_BUILD' : 'AWAITING_DEPLOY', status_message: null };
    case 'AWAITING_BUILD':
      return { status: facts.builds ? 'BUILDING' : 'AWAITING_DEPLOY', status_message: null };
    case 'BUILDING': {
      const sha = outcome.kind === 'built' && outcome.commitSha ? { repo_commit_sha: outcome.commitSha } : {};
      if (outcome.kind === 'built' && !outcome.ok) return { status: 'BUILD_FAILED', status_message: outcome.reason, ...sha };
      return { status: 'AWAITING_DEPLOY', status_message: null, ...sha };
    }
    case 'AWAITING_DEPLOY':
      return { status: 'DEPLOYING', status_message: null };
    case 'DEPLOYING':
      if (outcome.kind === 'deployed' && !outcome.ok) return { status: 'DEPLOY_FAILED', status_message: outcome.reason };
      return { status: 'DEPLOYED', status_message: null };
    default:
      return { status, status_message: 'keep' };
  }
}

/**
 * Where a revision stands on its way, for the statuses a listener's deployer reaches (it runs
 * this same machine, and is heard from between steps, so a report may skip statuses). A
 * finished status is reached from any status up to the last one before it: SKIPPED and
 * CREATE_FAILED before anything started, BUILD_FAILED from BUILDING at the latest,
 * DEPLOYED and DEPLOY_FAILED from DEPLOYING.
 */
const STAGE: Partial<Record<RevisionStatus, number>> = { CREATING: 0, QUEUED: 1, AWAITING_BUILD: 2, BUILDING: 3, AWAITING_DEPLOY: 4, DEPLOYING: 5 };
const REACHED_FROM: Partial<Record<RevisionStatus, number>> = { SKIPPED: 1, CREATE_FAILED: 1, BUILD_FAILED: 3, DEPLOYED: 5, DEPLOY_FAILED: 5 };

/**
 * Whether a listener may report a revision in `from` as `to`: the same status again (a
 * message, a commit), or forward only, as the engine moves revisions — never back (BUILDING
 * after DEPLOYED), never out of a finished status, never to UNKNOWN or INTERRUPTED (the
 * control plane's own words). A revision UNKNOWN (its listener was lost) takes whatever its
 * listener reports on its return: nobody else knows.
 */
export function reportable(from: RevisionStatus, to: RevisionStatus): boolean {
  if (from === to) return true;
  if (to === 'UNKNOWN' || to === 'INTERRUPTED') return false;
  if (from === 'UNKNOWN') return true;
  const at = STAGE[from];
  if (at === undefined) return false; // finished: it stays
  const stage = STAGE[to];
  if (stage !== undefined) return stage > at;
  const latest = REACHED_FROM[to];
  return latest !== undefined && at <= latest;
}
