// The build of a `github` revision on this machine: clone `repo_url` (any URL git can clone,
// a local path included), check out `repo_ref`, install, build. Each command has a time limit
// and its output goes to the revision's build log; a failure names the step and keeps the
// last lines of its output for `status_message`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { LogWriter } from './revisionLogs.ts';

export interface BuildRequest {
  repoUrl: string;
  /** Branch, tag (`refs/tags/…`), full ref or commit; null: the remote's default branch. */
  repoRef: string | null;
  /** The project file, relative to the repository root. */
  configPath: string;
  installCommand: string | null;
  buildCommand: string | null;
  checkoutDir: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  log: LogWriter;
}

export type BuildResult = { ok: true; commitSha: string } | { ok: false; reason: string; commitSha?: string };

class StepFailed extends Error {}

const TAIL_LINES = 15;
const TAIL_CHARS = 1500;

/** Runs one command, its output lines into the log; rejects with a StepFailed naming it. */
function runStep(step: string, command: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs: number; signal: AbortSignal; log: LogWriter; shell?: boolean }): Promise<string> {
  return new Promise((resolve, reject) => {
    const tail: string[] = [];
    let stdout = '';
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, shell: options.shell ?? false, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
    const collect = (stream: NodeJS.ReadableStream, isStdout: boolean) => {
      let pending = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        if (isStdout) stdout += chunk;
        pending += chunk;
        const lines = pending.split(/\r?\n/);
        pending = lines.pop() ?? '';
        for (const line of lines) emit(line);
      });
      stream.on('end', () => {
        if (pending) emit(pending);
      });
    };
    const emit = (line: string) => {
      options.log.write(line);
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    };
    collect(child.stdout!, true);
    collect(child.stderr!, false);
    child.on('error', (err) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(new StepFailed(`${step} could not start "${[command, ...args].join(' ')}": ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      if (code === 0) return resolve(stdout);
      const shown = options.shell ? command : [command, ...args].join(' ');
      const why = options.signal.aborted ? 'was stopped' : timedOut ? `timed out after ${Math.round(options.timeoutMs / 1000)} s` : signal ? `was killed by ${signal}` : `exited with code ${code}`;
      let output = tail.join('\n');
      if (output.length > TAIL_CHARS) output = `…${output.slice(-TAIL_CHARS)}`;
      reject(new StepFailed(`${step} "${shown}" ${why}.${output ? `\n${output}` : ''}`));
    });
  });
}

/** What upstream's builders do when `install_command` is null: the lockfile decides. */
export function detectInstallCommand(dir: string): string | null {
  const has = (file: string) => fs.existsSync(path.join(dir, file));
  if (has('package-lock.json') || has('npm-shrinkwrap.json')) return 'npm ci';
  if (has('pnpm-lock.yaml')) return 'pnpm install --frozen-lockfile';
  if (has('yarn.lock')) return 'yarn install --frozen-lockfile';
  if (has('bun.lockb') || has('bun.lock')) return 'bun install --frozen-lockfile';
  if (has('package.json')) return 'npm install';
  return null;
}

async function resolveCommit(request: BuildRequest, git: (step: string, args: string[]) => Promise<string>): Promise<string> {
  const ref = request.repoRef;
  const candidates = ref === null ? ['refs/remotes/origin/HEAD'] : ref.startsWith('refs/heads/') ? [`refs/remotes/origin/${ref.slice('refs/heads/'.length)}`] : [`refs/remotes/origin/${ref}`, ref];
  for (const candidate of candidates) {
    try {
      return (await git('resolving the ref', ['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`])).trim();
    } catch {
      // try the next form of the ref
    }
  }
  throw new StepFailed(`repo_ref "${ref ?? '(default branch)'}" is not a branch, tag or commit of ${request.repoUrl}.`);
}

export async function buildRevision(request: BuildRequest): Promise<BuildResult> {
  const { log, checkoutDir } = request;
  const step = { env: { ...request.env, GIT_TERMINAL_PROMPT: '0' }, timeoutMs: request.timeoutMs, signal: request.signal, log };
  const git = (name: string, args: string[]) => runStep(name, 'git', args, { ...step, cwd: checkoutDir });
  let commitSha: string | undefined;
  try {
    fs.rmSync(checkoutDir, { recursive: true, force: true });
    fs.mkdirSync(checkoutDir, { recursive: true, mode: 0o700 });
    log.write(`Fetching ${request.repoUrl} at ${request.repoRef ?? 'its default branch'}`);
    await git('git clone', ['clone', '--quiet', '--no-checkout', request.repoUrl, '.']);
    commitSha = await resolveCommit(request, git);
    await git('git checkout', ['checkout', '--quiet', '--detach', commitSha]);
    log.write(`Checked out ${commitSha}`);

    const configFile = path.resolve(checkoutDir, request.configPath);
    if (!configFile.startsWith(checkoutDir + path.sep) || !fs.existsSync(configFile)) {
      throw new StepFailed(`graph_config_path "${request.configPath}" is not a file of the repository at ${commitSha}.`);
    }
    const install = request.installCommand ?? detectInstallCommand(checkoutDir);
    if (install) {
      log.write(`Installing: ${install}`);
      await runStep('install', install, [], { ...step, cwd: checkoutDir, shell: true });
    } else {
      log.write('Nothing to install (no package.json at the repository root)');
    }
    if (request.buildCommand) {
      log.write(`Building: ${request.buildCommand}`);
      await runStep('build', request.buildCommand, [], { ...step, cwd: path.dirname(configFile), shell: true });
    }
    log.write('Build finished');
    return { ok: true, commitSha };
  } catch (err) {
    if (!(err instanceof StepFailed)) throw err;
    log.write(err.message.split('\n')[0], 'ERROR');
    return { ok: false, reason: `Build failed: ${err.message}`, commitSha };
  }
}
