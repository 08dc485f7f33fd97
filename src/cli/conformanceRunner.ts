// `agentplane conformance` runs the suite under node's test runner, and the suite's file in a
// process of the runner's. Two things about that pair the command takes care of here:
//
// - Ctrl-C or SIGTERM goes to the suite's process alone (its pid in a file it writes), which
//   deletes what it made and then ends; the runner, given the signal, ended at once and the
//   command with it while the deleting went on behind the prompt. Before the suite's process
//   has started, the runner is stopped instead.
// - Node 20's runner can spin forever at full CPU on a report it reads cut short or misframed
//   (nodejs/node#62693, fixed in later lines), never ending, never reaping the suite's process,
//   and the command waited for it: a CI job held until its own time limit. Once the suite's
//   process has ended (gone, or a zombie its runner never reaped), the runner is given a grace
//   period to end as usual, then killed, and the command ends as the outcome says.
import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';

export interface ConformanceRunnerOptions {
  /** Where the suite's process writes its pid (CONFORMANCE_PID_FILE). */
  pidFile: string;
  /** How long the runner has to end after the suite's process has (default 10 s). */
  graceMs?: number;
  /** How often the suite's process is looked at (default 250 ms). */
  pollMs?: number;
}

/** How the command ends: the runner's code, 130/143 for an interruption, or 1 when the runner had to be killed. */
export interface ConformanceEnd {
  code: number;
  /** Said on stderr: the runner was killed after the suite's process had ended. */
  note?: string;
}

export interface ConformanceRunnerWatch {
  /** Passes Ctrl-C or SIGTERM on as above (a second one does nothing more). */
  interrupt(signal: NodeJS.Signals): void;
  /** Once the runner has ended: how the command ends. */
  ended: Promise<ConformanceEnd>;
}

/** Watches `runner` (node --test over the suite) until it ends. */
export function watchConformanceRunner(runner: ChildProcess, options: ConformanceRunnerOptions): ConformanceRunnerWatch {
  const graceMs = options.graceMs ?? 10_000;
  let interrupted: NodeJS.Signals | null = null;
  let killedAfterSuite = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const interruptionCode = () => (interrupted === 'SIGINT' ? 130 : 143);

  const ended = new Promise<ConformanceEnd>((resolve) => {
    runner.once('exit', (code, signal) => {
      clearInterval(watch);
      clearTimeout(graceTimer);
      if (interrupted) resolve({ code: interruptionCode() });
      else if (killedAfterSuite)
        resolve({
          code: 1,
          note: `conformance: node's test runner did not end ${graceMs} ms after the suite's process had; it was stopped and its report may be incomplete`,
        });
      else resolve({ code: code ?? (signal ? 1 : 0) });
    });
  });

  const watch = setInterval(() => {
    const pid = suitePid(options.pidFile);
    if (pid === null || graceTimer || processRuns(pid)) return;
    graceTimer = setTimeout(() => {
      killedAfterSuite = true;
      runner.kill('SIGKILL');
    }, graceMs);
  }, options.pollMs ?? 250);

  return {
    interrupt(signal) {
      if (interrupted) return;
      interrupted = signal;
      void suitePidOnceWritten(options.pidFile).then((pid) => {
        try {
          if (pid !== null) return void process.kill(pid, signal);
        } catch {
          // ended meanwhile: the runner is told instead
        }
        runner.kill(signal);
      });
    },
    ended,
  };
}

/** How long a pid file seen without its pid yet is waited for before the runner is told instead. */
const PID_WRITING_MS = 2_000;

/**
 * The suite's pid for a signal: none when the suite has not written its file (the runner is
 * told), and when its file is there without the pid in it yet — a Ctrl-C in the moment between
 * the file's creation and its write — the pid once it is (a runner told instead would end the
 * suite's process before its handler could delete what it made).
 */
async function suitePidOnceWritten(pidFile: string): Promise<number | null> {
  const until = Date.now() + PID_WRITING_MS;
  for (;;) {
    const pid = suitePid(pidFile);
    if (pid !== null || !fs.existsSync(pidFile) || Date.now() >= until) return pid;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The suite's process's pid, once it has written it. */
function suitePid(pidFile: string): number | null {
  let text: string;
  try {
    text = fs.readFileSync(pidFile, 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Whether `pid` still runs: not gone, and not a zombie its parent has yet to reap (Linux's /proc says; elsewhere a zombie counts as running). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // the state follows the parenthesised command name, which may itself hold spaces or parentheses
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
