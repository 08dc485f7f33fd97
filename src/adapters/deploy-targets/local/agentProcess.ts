// One deployment's agent server process: started as a child of the control plane, or adopted
// by pid after a control-plane crash (it kept running). Its output goes straight to the log
// file, not through a pipe, so it survives the control plane going away. An exit nobody asked
// for restarts it with back-off.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../domain/ports/logger.ts';

export interface AgentProcessSpec {
  deploymentId: string;
  revisionId: string;
  command: string;
  args: string[];
  cwd: string;
  /** The deployment's own user (sandbox.ts); undefined: the control plane's. */
  uid?: number;
  gid?: number;
  env: Record<string, string>;
  logFile: string;
  url: string;
  /** The deployer's key for its look at which graphs the server loaded (probes.ts), when the server asks for keys. */
  probeKey?: string;
}

const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 30_000;
/** Up this long, a process has its restart back-off reset. */
const HEALTHY_MS = 60_000;
const STOP_GRACE_MS = 10_000;

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export class AgentProcess {
  private child: ChildProcess | null = null;
  private adoptedPid: number | null = null;
  private watch: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private backoffMs = RESTART_MIN_MS;
  private startedAt = 0;
  /** Settles when the current process exits (for start-up checks). */
  exited: Promise<string> = new Promise(() => {});

  constructor(
    readonly spec: AgentProcessSpec,
    private readonly log: Logger,
    /** Told each new pid (the first start and every restart), so it can be found after a crash. */
    private readonly onStarted: (pid: number | null) => void = () => {},
  ) {}

  get pid(): number | null {
    return this.child?.pid ?? this.adoptedPid;
  }

  start(): void {
    this.stopping = false;
    fs.mkdirSync(path.dirname(this.spec.logFile), { recursive: true, mode: 0o700 });
    const out = fs.openSync(this.spec.logFile, 'a', 0o600);
    try {
      // the log file is opened here, by the control plane: the process writes to it without being able to open it
      this.child = spawn(this.spec.command, this.spec.args, {
        cwd: this.spec.cwd,
        env: this.spec.env,
        uid: this.spec.uid,
        gid: this.spec.gid,
        stdio: ['ignore', out, out],
      });
    } finally {
      fs.closeSync(out);
    }
    this.startedAt = Date.now();
    this.onStarted(this.child.pid ?? null);
    const child = this.child;
    this.exited = new Promise((resolve) => {
      child.once('error', (err) => resolve(`could not start: ${err.message}`));
      child.once('exit', (code, signal) => resolve(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    });
    void this.exited.then((how) => {
      if (this.child === child) this.child = null;
      this.onExit(how);
    });
  }

  /** Takes over a process left running by an earlier control plane. */
  adopt(pid: number): void {
    this.stopping = false;
    this.adoptedPid = pid;
    this.startedAt = Date.now();
    let settle: (how: string) => void = () => {};
    this.exited = new Promise((resolve) => (settle = resolve));
    // not our child: no exit event, so its liveness is polled
    this.watch = setInterval(() => {
      if (isAlive(pid)) return;
      clearInterval(this.watch!);
      this.watch = null;
      this.adoptedPid = null;
      settle('exited');
      this.onExit('exited');
    }, 1000);
    this.watch.unref();
  }

  private onExit(how: string): void {
    if (this.stopping) return;
    if (Date.now() - this.startedAt > HEALTHY_MS) this.backoffMs = RESTART_MIN_MS;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, RESTART_MAX_MS);
    const note = `[agentplane] the agent server of revision ${this.spec.revisionId} ${how}; restarting in ${(delay / 1000).toFixed(1)} s`;
    fs.appendFileSync(this.spec.logFile, `${note}\n`);
    this.log.warn('deployed agent server exited; restarting', {
      deployment_id: this.spec.deploymentId,
      revision_id: this.spec.revisionId,
      how,
      restart_in_ms: delay,
    });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.stopping) this.start();
    }, delay);
  }

  /** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.watch) clearInterval(this.watch);
    const pid = this.pid;
    if (pid !== null) await terminate(pid, this.child ? this.exited : undefined);
    this.child = null;
    this.adoptedPid = null;
  }
}

/** SIGTERM, then SIGKILL after a grace period; resolves once `pid` is gone. */
export async function terminate(pid: number, exited?: Promise<unknown>): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  // our own child is gone when its exit event fired; another process when kill(0) fails
  const waitGone = async (ms: number) => {
    if (exited) return Promise.race([exited.then(() => true), sleep(ms).then(() => false)]);
    for (let waited = 0; waited < ms; waited += 50) {
      if (!isAlive(pid)) return true;
      await sleep(50);
    }
    return false;
  };
  signal('SIGTERM');
  if (await waitGone(STOP_GRACE_MS)) return;
  signal('SIGKILL');
  await waitGone(STOP_GRACE_MS);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
