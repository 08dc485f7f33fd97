// The boundary around what a tenant's code runs on this machine (its clone, install and
// build commands, its agent server): with `user` isolation each deployment gets an
// unprivileged system user of its own (`useradd --system`, made here) and a private
// workspace (0700, that user's) outside the control plane's data directory, which stays
// root's and 0700. Its processes get an environment holding the deployment's secrets and
// nothing of the control plane's, and resource limits (prlimit). Without root the deployer
// cannot switch users: `none` runs everything as the control plane's own user, and says so.
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type IsolationMode = 'user' | 'none';

/** Per-process limits (prlimit): enough for an npm install and an agent server, not for a fork bomb or a disk-filling file. */
export interface ResourceLimits {
  /** Processes and threads of the deployment's user (Linux counts each thread: an agent server has a few per run worker). */
  processes: number;
  openFiles: number;
  fileSizeBytes: number;
}

export const DEFAULT_LIMITS: ResourceLimits = { processes: 4096, openFiles: 8192, fileSizeBytes: 4 * 1024 ** 3 };

/** How one deployment's processes run. */
export interface Sandbox {
  /** The deployment's workspace: checkouts, its agent server's data, HOME and TMPDIR. */
  workspace: string;
  /** The deployment's user, or undefined when the control plane's own user runs it. */
  uid: number | undefined;
  gid: number | undefined;
  /** The whole environment of a process of the deployment: nothing inherited beyond PATH, locale and time zone. */
  env(variables: Record<string, string>): Record<string, string>;
  /** `command args` under the resource limits. */
  limited(command: string, args: string[]): { command: string; args: string[] };
  /** Makes a tree the control plane put into the workspace the deployment's (links are not followed). */
  give(dir: string): void;
}

export interface SandboxesOptions {
  mode: IsolationMode;
  /** Where the workspaces are made; must not be inside the data directory (it is not reachable by the deployments' users). */
  root: string;
  limits: ResourceLimits;
  /** The control plane's environment, read for PATH, locale and time zone only. */
  baseEnv: Record<string, string | undefined>;
}

// Not secrets, and needed to find git, node and npm and to print text as the operator expects
const PASSED_ON = ['PATH', 'LANG', 'LC_ALL', 'TZ'] as const;
const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The isolation a deployer gets from AGENTPLANE_DEPLOYER_ISOLATION (`auto`: `user` when root). */
export function isolationMode(setting: 'auto' | IsolationMode, isRoot: boolean): IsolationMode {
  if (setting === 'user' && !isRoot)
    throw new Error(
      'AGENTPLANE_DEPLOYER_ISOLATION=user needs the control plane to run as root (it creates a user per deployment); run it as root, or set auto or none',
    );
  return setting === 'auto' ? (isRoot ? 'user' : 'none') : setting;
}

/** The system user a deployment's processes run as: short enough for useradd (32), stable across restarts. */
export function deploymentUserName(deploymentId: string): string {
  return `agentplane-${createHash('sha256').update(deploymentId).digest('hex').slice(0, 20)}`;
}

function findOnPath(name: string, pathVariable: string | undefined): string | null {
  for (const dir of (pathVariable ?? FALLBACK_PATH).split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** The first directory from `dir` up that other users cannot pass through, or null. */
function closedAncestor(dir: string): string | null {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (fs.existsSync(at) && (fs.statSync(at).mode & 0o001) === 0) return at;
    if (path.dirname(at) === at) return null;
  }
}

export class Sandboxes {
  private readonly prlimit: string | null;
  private readonly gitConfig: string;
  /** useradd and userdel lock /etc/passwd; one at a time avoids "cannot lock" failures. */
  private accounts: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SandboxesOptions) {
    this.prlimit = findOnPath('prlimit', options.baseEnv.PATH);
    // 0711: each deployment's user reaches its own workspace by name, and lists no one's
    fs.mkdirSync(options.root, { recursive: true, mode: 0o711 });
    this.gitConfig = path.join(options.root, 'gitconfig');
    // someone else's (or a link): left alone, and unreachable() says so
    if (!this.ownsRoot()) return;
    fs.chmodSync(options.root, options.mode === 'user' ? 0o711 : 0o700);
    // a clone of a repository owned by someone else (a local path) is what a build does: git's
    // ownership check would refuse it to the deployment's user. Root's file, outside the
    // workspaces, so no deployment can change it.
    fs.writeFileSync(this.gitConfig, '[safe]\n\tdirectory = *\n', { mode: 0o644 });
    fs.chmodSync(this.gitConfig, 0o644);
  }

  get mode(): IsolationMode {
    return this.options.mode;
  }

  /** What a build log and the start-up log say about the boundary, so nobody assumes more than there is. */
  describe(): string {
    const limits = this.prlimit ? 'resource limits applied with prlimit' : 'no resource limits (prlimit is not installed)';
    if (this.options.mode === 'user')
      return `Isolation: a user of its own for this deployment, a private workspace, only its secrets in the environment; ${limits}`;
    return `Isolation: none — builds and agent servers run as the control plane's own user and can read its data directory and other deployments (user isolation needs the control plane to run as root); ${limits}`;
  }

  /** Why deployments' users could not reach their workspaces or the programs in `dirs` they run, or null. */
  unreachable(dirs: readonly string[]): string | null {
    if (this.options.mode !== 'user') return null;
    if (!this.ownsRoot()) return `${this.options.root} is not a directory of the control plane's own user (set AGENTPLANE_DEPLOYMENTS_DIR elsewhere)`;
    for (const dir of [this.options.root, ...dirs]) {
      const closed = closedAncestor(dir);
      if (closed)
        return `${closed} is not searchable by other users, so the deployments' users cannot reach ${dir} (chmod o+x ${closed}, or set AGENTPLANE_DEPLOYMENTS_DIR elsewhere)`;
    }
    return null;
  }

  /** Made by someone else first (in a shared /tmp, say), its owner could reach into every workspace. */
  private ownsRoot(): boolean {
    const root = fs.lstatSync(this.options.root);
    return root.isDirectory() && root.uid === process.getuid?.();
  }

  /**
   * The deployment's sandbox, its user and workspace made if they are not there yet. Inside a
   * workspace that exists the control plane changes nothing: the deployment's processes may
   * have put links there, which a process running as root must not follow.
   */
  async prepare(deploymentId: string): Promise<Sandbox> {
    const workspace = path.join(this.options.root, deploymentId);
    const tmp = path.join(workspace, 'tmp');
    fs.mkdirSync(workspace, { recursive: true, mode: 0o700 });
    const madeTmp = makeDir(tmp);
    let uid: number | undefined;
    let gid: number | undefined;
    if (this.options.mode === 'user') {
      ({ uid, gid } = await this.account(deploymentUserName(deploymentId), workspace));
      fs.lchownSync(workspace, uid, gid);
      if (madeTmp) fs.lchownSync(tmp, uid, gid);
    }
    const limits = this.options.limits;
    const prlimit = this.prlimit;
    const userMode = this.options.mode === 'user';
    return {
      workspace,
      uid,
      gid,
      env: (variables) => {
        const env: Record<string, string> = { PATH: FALLBACK_PATH };
        for (const name of PASSED_ON) if (this.options.baseEnv[name]) env[name] = this.options.baseEnv[name]!;
        return { ...env, HOME: workspace, TMPDIR: tmp, GIT_CONFIG_GLOBAL: this.gitConfig, ...variables };
      },
      limited: (command, args) => {
        if (!prlimit) return { command, args };
        // RLIMIT_NPROC counts every process of the real user: only meaningful for a user of its own
        const nproc = userMode ? [`--nproc=${limits.processes}`] : [];
        return { command: prlimit, args: [...nproc, `--nofile=${limits.openFiles}`, `--fsize=${limits.fileSizeBytes}`, '--core=0', '--', command, ...args] };
      },
      give: (dir) => {
        if (uid !== undefined && gid !== undefined) chownTree(dir, uid, gid);
      },
    };
  }

  /** Ends every process the deployment's user still has (a build's daemon, say), removes its workspace and its user. */
  async remove(deploymentId: string): Promise<void> {
    if (this.options.mode === 'user') {
      const name = deploymentUserName(deploymentId);
      const uid = userId(name);
      if (uid !== null) for (const pid of processesOf(uid)) kill(pid);
      await this.serially(() => run('userdel', [name]).catch(() => undefined));
    }
    fs.rmSync(path.join(this.options.root, deploymentId), { recursive: true, force: true });
  }

  private async account(name: string, home: string): Promise<{ uid: number; gid: number }> {
    await this.serially(async () => {
      if (userId(name) !== null) return;
      await run('useradd', [
        '--system',
        '--no-create-home',
        '--home-dir',
        home,
        '--shell',
        '/usr/sbin/nologin',
        '--user-group',
        '--comment',
        'agentplane deployment',
        name,
      ]);
    });
    const uid = userId(name);
    if (uid === null) throw new Error(`useradd made no user ${name}`);
    return { uid, gid: Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim()) };
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.accounts.then(work, work);
    this.accounts = next.catch(() => undefined);
    return next;
  }
}

/** mkdir that leaves whatever is already there alone; true when it made the directory. */
function makeDir(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function userId(name: string): number | null {
  try {
    return Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    return null;
  }
}

/** Pids whose real user is `uid`, from /proc. */
function processesOf(uid: number): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}

function chownTree(dir: string, uid: number, gid: number): void {
  fs.lchownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(at, uid, gid);
    else fs.lchownSync(at, uid, gid);
  }
}
