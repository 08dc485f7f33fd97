// `agentplane dev` as a user runs it: a child process started in a project's folder with no
// flags, on a free port; resolves once it listens and watches the project.
import { spawn, type ChildProcess } from 'node:child_process';
import { logLine, logLines } from './logLines.ts';
import { cliEntry } from './childImports.ts';

export interface DevProcess {
  url: string;
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /**
   * SIGTERM, and resolves once it has exited (SIGKILL after STOP_MS). A server stopping flushes
   * its store into the project's `.langgraph_api`: a folder removed before it has exited may be
   * written into meanwhile, and `rmSync` then fails with ENOTEMPTY (a CI run hung so: the throw
   * left the other servers of the file running, and the file never ended).
   */
  stop(): Promise<void>;
}

/** How long a stopped dev server has to exit before it is killed. */
const STOP_MS = 10_000;

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startDev(dir: string, env: Record<string, string> = {}): Promise<DevProcess> {
  let output = '';
  const child = spawn(process.execPath, [...cliEntry(), 'dev'], {
    cwd: dir,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`dev did not start:\n${output}`)), 60_000);
      const check = () => {
        const listening = logLine(output, 'agentplane listening');
        // the banner and the watcher come right after the server listens, and a key it created
        // after them; piped, the banner and the key go to stderr, read apart from stdout's lines
        const created = logLines(output).some((line) => line.keys === 'created on this start');
        const told = /\bAPI\s+http/.test(output) && (!created || /API key \(created on first start\)/.test(output));
        if (listening && /watching the project/.test(output) && told) {
          clearTimeout(timer);
          resolve(listening.url);
        }
      };
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      child.once('exit', (code) => reject(new Error(`dev exited with ${code}:\n${output}`)));
    });
    return { url, child, output: () => output, stop: () => stopChild(child) };
  } catch (err) {
    child.kill('SIGTERM');
    throw err;
  }
}
