// The build of a `github` revision on this machine: clone `repo_url` (any URL git can clone,
// a local path included), check out `repo_ref`, install, build — every command inside the
// deployment's sandbox. Each command has a time limit and its output, the deployment's
// secret values masked, goes to the revision's build log; a failure names the step and keeps
// the last lines of its output for `status_message`.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { eachLine } from '../../images/engine.ts';
import { detectInstallCommand } from '../../images/installCommand.ts';
import type { Redact } from '../../../domain/control-plane/redaction.ts';
import { maskRepoUrl } from '../../../domain/control-plane/repoUrl.ts';
import { confinedProjectFile } from './checkoutPaths.ts';
import type { LogWriter } from '../../log-files/revisionLogFiles.ts';
import type { Sandbox } from './sandbox.ts';

export interface BuildRequest {
  repoUrl: string;
  /** Branch, tag (`refs/tags/…`), full ref or commit; null: the remote's default branch. */
  repoRef: string | null;
  /** The project file, relative to the repository root. */
  configPath: string;
  installCommand: string | null;
  buildCommand: string | null;
  checkoutDir: string;
  sandbox: Sandbox;
  /** The deployment's secrets, the build's environment. */
  variables: Record<string, string>;
  redact: Redact;
  timeoutMs: number;
  /** The clone's own bound, within `timeoutMs` (CLONE_TIMEOUT_MS by default). */
  cloneTimeoutMs?: number;
  signal: AbortSignal;
  log: LogWriter;
  /** Only fetch and check out: the install and build commands run elsewhere (inside an image build). */
  checkoutOnly?: boolean;
}

export type BuildResult = { ok: true; commitSha: string } | { ok: false; reason: string; commitSha?: string };

class StepFailed extends Error {}

/** A clone that has not finished in 5 minutes is stuck (a remote that accepts and never answers), not large. */
export const CLONE_TIMEOUT_MS = 5 * 60_000;
/**
 * The transports a clone may use (GIT_ALLOW_PROTOCOL): file for paths on this machine, git,
 * http(s) and ssh. Every other is refused by git itself, remote helpers above all (`ext::`
 * runs a command, `fd::` reads a descriptor of this process): the API refuses them too
 * (domain/control-plane/repoUrl.ts); this holds for a URL stored before that rule.
 */
const CLONE_PROTOCOLS = 'file:git:http:https:ssh';

const TAIL_LINES = 15;
const TAIL_CHARS = 1500;

interface StepOptions {
  cwd: string;
  sandbox: Sandbox;
  env: Record<string, string>;
  redact: Redact;
  timeoutMs: number;
  signal: AbortSignal;
  log: LogWriter;
  /** How the command is named in messages (a shell command as written). */
  shown: string;
}

/** Runs one command in the sandbox, its output lines into the log; rejects with a StepFailed naming it. */
function runStep(step: string, command: string, args: string[], options: StepOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const tail: string[] = [];
    let stdout = '';
    const limited = options.sandbox.limited(command, args);
    const child = spawn(limited.command, limited.args, {
      cwd: options.cwd,
      env: options.env,
      uid: options.sandbox.uid,
      gid: options.sandbox.gid,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    // the whole process group goes: an install's own children must not outlive a time-out
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => killGroup();
    options.signal.addEventListener('abort', onAbort, { once: true });
    const emit = (raw: string) => {
      const line = options.redact(raw);
      options.log.write(line);
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    };
    eachLine(child.stdout!, emit, (chunk) => (stdout += chunk));
    eachLine(child.stderr!, emit);
    child.on('error', (err) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(new StepFailed(`${step} could not start "${options.shown}": ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      if (code === 0) return resolve(stdout);
      const why = options.signal.aborted
        ? 'was stopped'
        : timedOut
          ? `timed out after ${Math.round(options.timeoutMs / 1000)} s`
          : signal
            ? `was killed by ${signal}`
            : `exited with code ${code}`;
      let output = tail.join('\n');
      if (output.length > TAIL_CHARS) output = `…${output.slice(-TAIL_CHARS)}`;
      reject(new StepFailed(`${step} "${options.shown}" ${why}.${output ? `\n${output}` : ''}`));
    });
  });
}

async function resolveCommit(request: BuildRequest, git: (step: string, args: string[]) => Promise<string>): Promise<string> {
  const ref = request.repoRef;
  const candidates =
    ref === null
      ? ['refs/remotes/origin/HEAD']
      : ref.startsWith('refs/heads/')
        ? [`refs/remotes/origin/${ref.slice('refs/heads/'.length)}`]
        : [`refs/remotes/origin/${ref}`, ref];
  for (const candidate of candidates) {
    try {
      return (await git('resolving the ref', ['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`])).trim();
    } catch {
      // try the next form of the ref
    }
  }
  throw new StepFailed(`repo_ref "${ref ?? '(default branch)'}" is not a branch, tag or commit of ${maskRepoUrl(request.repoUrl)}.`);
}

export async function buildRevision(request: BuildRequest): Promise<BuildResult> {
  const { log, checkoutDir, sandbox, redact } = request;
  const env = sandbox.env({ ...request.variables, GIT_TERMINAL_PROMPT: '0', GIT_ALLOW_PROTOCOL: CLONE_PROTOCOLS });
  const step = { sandbox, env, redact, timeoutMs: request.timeoutMs, signal: request.signal, log };
  const git = (name: string, args: string[]) => runStep(name, 'git', args, { ...step, cwd: checkoutDir, shown: `git ${args[0]}` });
  const shell = (name: string, command: string, cwd: string) => runStep(name, '/bin/sh', ['-c', command], { ...step, cwd, shown: command });
  let commitSha: string | undefined;
  try {
    // as the deployment's user: its workspace may hold links that the control plane must not follow
    await runStep('preparing the checkout', '/bin/sh', ['-c', 'rm -rf -- "$1" && mkdir -p -m 700 -- "$1"', 'sh', checkoutDir], {
      ...step,
      cwd: sandbox.workspace,
      shown: 'rm -rf && mkdir',
    });
    log.write(`Fetching ${maskRepoUrl(request.repoUrl)} at ${request.repoRef ?? 'its default branch'}`);
    // the schema refuses a URL starting with "-"; "--" makes sure no URL is ever read as an option
    if (request.repoUrl.startsWith('-')) throw new StepFailed('repo_url must not start with "-".');
    const cloneTimeoutMs = Math.min(request.timeoutMs, request.cloneTimeoutMs ?? CLONE_TIMEOUT_MS);
    await runStep('git clone', 'git', ['clone', '--quiet', '--no-checkout', '--', request.repoUrl, '.'], {
      ...step,
      timeoutMs: cloneTimeoutMs,
      cwd: checkoutDir,
      shown: 'git clone',
    });
    commitSha = await resolveCommit(request, git);
    await git('git checkout', ['checkout', '--quiet', '--detach', commitSha]);
    log.write(`Checked out ${commitSha}`);

    const configFile = projectFileOf(checkoutDir, request.configPath, commitSha);
    if (request.checkoutOnly) return { ok: true, commitSha };
    const install = request.installCommand ?? detectInstallCommand(checkoutDir);
    if (install) {
      log.write(`Installing: ${install}`);
      await shell('install', install, checkoutDir);
    } else {
      log.write('Nothing to install (no package.json at the repository root)');
    }
    if (request.buildCommand) {
      log.write(`Building: ${request.buildCommand}`);
      await shell('build', request.buildCommand, path.dirname(configFile));
    }
    // again after the commands: they may have replaced a file with a link out of the checkout
    projectFileOf(checkoutDir, request.configPath, commitSha);
    log.write('Build finished');
    return { ok: true, commitSha };
  } catch (err) {
    if (!(err instanceof StepFailed)) throw err;
    const message = redact(err.message);
    log.write(message.split('\n')[0], 'ERROR');
    return { ok: false, reason: `Build failed: ${message}`, commitSha };
  }
}

/** The project file and every file it names, each confined to the checkout; the project file's real path. */
function projectFileOf(checkoutDir: string, configPath: string, commitSha: string): string {
  const confined = confinedProjectFile(checkoutDir, configPath);
  if (!confined.ok) throw new StepFailed(`${confined.problem} (at ${commitSha}).`);
  return confined.file;
}
