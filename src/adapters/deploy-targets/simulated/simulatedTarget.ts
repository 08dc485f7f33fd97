// The embedded default target: nothing runs. The revision engine paces every phase (`phaseMs`,
// its stepDelayMs) and this target answers each build and deploy at once, failing on purpose
// where the spec says so, so users can exercise their pipeline's error handling: a build
// command with the word "fail" fails the build, an image_uri with it fails the deploy. The
// commit a build "fetches" is stable: the same repository and ref resolve to the same sha.
import { createHash } from 'node:crypto';
import type { RevisionLogLine, RevisionLogs } from '../../../../generated/control-plane/types.gen.ts';
import type { DeploymentRecord, RevisionRecord } from '../../../domain/control-plane/records.ts';
import { isFinished } from '../../../domain/control-plane/revisionStateMachine.ts';
import type { BuildOutcome, DeployOutcome, DeployTarget, LogKind } from '../../../domain/control-plane/deployTarget.ts';
import { pageOfLog, type LogRequest } from '../../../domain/control-plane/deployer/revisionLogs.ts';
import { maskRepoUrl } from '../../../domain/control-plane/repoUrl.ts';

const FAIL_WORD = /\bfail\b/i;

/** The simulated build: the commit, or the failure a build command with "fail" asks for. */
export function simulatedBuild(deployment: DeploymentRecord, revision: RevisionRecord): BuildOutcome {
  const commitSha = simulatedCommit(deployment.source_config.repo_url, revision.source_revision_config.repo_ref);
  const command = deployment.source_config.build_command;
  if (command && FAIL_WORD.test(command)) return { ok: false, reason: `Build failed: build command "${command}" exited with code 1.`, commitSha };
  return { ok: true, commitSha };
}

/** The simulated deploy: serving, or the failure an image_uri with "fail" asks for. */
export function simulatedDeploy(revision: RevisionRecord): DeployOutcome {
  const image = revision.source_revision_config.image_uri;
  if (image && FAIL_WORD.test(image)) return { ok: false, reason: `Deploy failed: image ${image} could not be pulled.` };
  return { ok: true, url: null };
}

/** A stable fake commit: the same repository and ref always "resolve" to the same sha. */
function simulatedCommit(repoUrl: string | null, ref: string | null): string {
  return createHash('sha1')
    .update(`${repoUrl ?? ''}#${ref ?? ''}`)
    .digest('hex');
}

export const simulatedTarget: DeployTarget = {
  builds: true,
  build: async (deployment, revision) => simulatedBuild(deployment, revision),
  deploy: async (_deployment, revision) => simulatedDeploy(revision),
  remove: async () => undefined,
  /** Nothing really runs: the log says which simulated phases the revision went through. */
  logs: async (revision: RevisionRecord, deployment: DeploymentRecord | undefined, kind: LogKind, request: LogRequest): Promise<RevisionLogs> =>
    pageOfLog(simulatedLog(revision, deployment, kind), request, isFinished(revision.status)),
};

const BUILD_REACHED: ReadonlySet<string> = new Set(['BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED', 'DEPLOY_FAILED', 'BUILD_FAILED']);
const DEPLOY_REACHED: ReadonlySet<string> = new Set(['DEPLOYING', 'DEPLOYED', 'DEPLOY_FAILED']);

function simulatedLog(revision: RevisionRecord, deployment: DeploymentRecord | undefined, kind: LogKind): RevisionLogLine[] {
  const line = (message: string, level: RevisionLogLine['level'] = 'INFO'): RevisionLogLine => ({ timestamp: revision.updated_at, level, message });
  const config = revision.source_revision_config;
  if (kind === 'build') {
    if (!BUILD_REACHED.has(revision.status) || revision.redeploy_of) return [];
    // an image deployment has no repository: its build step is pulling the image
    const lines =
      deployment?.source === 'external_docker'
        ? [line(`[simulated] Pulling the image ${config.image_uri ?? '(none given)'}`)]
        : [
            line(
              `[simulated] Fetching ${maskRepoUrl(deployment?.source_config.repo_url ?? null) ?? 'the repository'} at ${config.repo_ref ?? 'its default branch'}`,
            ),
          ];
    if (config.repo_commit_sha) lines.push(line(`[simulated] Checked out ${config.repo_commit_sha}`));
    if (revision.status === 'BUILD_FAILED') lines.push(line(revision.status_message ?? 'Build failed', 'ERROR'));
    else if (revision.status !== 'BUILDING') lines.push(line('[simulated] Build finished'));
    return lines;
  }
  if (!DEPLOY_REACHED.has(revision.status)) return [];
  const lines = [line(`[simulated] Starting the agent server${config.image_uri ? ` from ${config.image_uri}` : ''}`)];
  if (revision.status === 'DEPLOY_FAILED') lines.push(line(revision.status_message ?? 'Deploy failed', 'ERROR'));
  if (revision.status === 'DEPLOYED') lines.push(line('[simulated] The agent server answers /ok'));
  return lines;
}
