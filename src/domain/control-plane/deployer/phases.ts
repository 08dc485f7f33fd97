// The revision lifecycle as a pure function: given a revision and its deployment, the next
// status. Timing, persistence and queueing are the deployer's business.
import { createHash } from 'node:crypto';
import type { RevisionStatus } from '../../../../generated/control-plane/types.gen.ts';
import type { DeploymentRecord, RevisionRecord } from '../records.ts';

/** Statuses during which a revision holds its deployment's single build/deploy slot. */
export const IN_PROGRESS: ReadonlySet<RevisionStatus> = new Set(['AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING']);
/** Statuses a newer revision supersedes (the revision has not started yet). */
export const NOT_STARTED: ReadonlySet<RevisionStatus> = new Set(['CREATING', 'QUEUED']);
export const UNFINISHED: readonly RevisionStatus[] = [...NOT_STARTED, ...IN_PROGRESS];

export const isFinished = (status: RevisionStatus) => !NOT_STARTED.has(status) && !IN_PROGRESS.has(status);

export interface Step {
  status: RevisionStatus;
  status_message: string | null;
  repo_commit_sha?: string;
}

// Failures on purpose, so users can exercise their pipeline's error handling (see the spec).
const FAIL_WORD = /\bfail\b/i;

export function nextStep(revision: RevisionRecord, deployment: DeploymentRecord): Step {
  const config = revision.source_revision_config;
  switch (revision.status) {
    case 'CREATING':
      return { status: 'QUEUED', status_message: null };
    case 'QUEUED': {
      const build = deployment.source === 'github' && revision.redeploy_of === null;
      return { status: build ? 'AWAITING_BUILD' : 'AWAITING_DEPLOY', status_message: null };
    }
    case 'AWAITING_BUILD':
      // the source is fetched here, so the commit becomes known
      return { status: 'BUILDING', status_message: null, repo_commit_sha: simulatedCommit(deployment.source_config.repo_url, config.repo_ref) };
    case 'BUILDING': {
      const command = deployment.source_config.build_command;
      if (command && FAIL_WORD.test(command)) {
        return { status: 'BUILD_FAILED', status_message: `Build failed: build command "${command}" exited with code 1.` };
      }
      return { status: 'AWAITING_DEPLOY', status_message: null };
    }
    case 'AWAITING_DEPLOY':
      return { status: 'DEPLOYING', status_message: null };
    case 'DEPLOYING':
      if (config.image_uri && FAIL_WORD.test(config.image_uri)) {
        return { status: 'DEPLOY_FAILED', status_message: `Deploy failed: image ${config.image_uri} could not be pulled.` };
      }
      return { status: 'DEPLOYED', status_message: null };
    default:
      return { status: revision.status, status_message: revision.status_message };
  }
}

/** A stable fake commit: the same repository and ref always "resolve" to the same sha. */
function simulatedCommit(repoUrl: string | null, ref: string | null): string {
  return createHash('sha1')
    .update(`${repoUrl ?? ''}#${ref ?? ''}`)
    .digest('hex');
}
