// A Prism validation proxy (`prism proxy <spec> <upstream> --errors`) in front of a server:
// it checks every request and answer against the spec on its own, independently of ours.
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PRISM = path.join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js');
// Prism's server with agentplane's keep-alive idle timeout (why: in the file)
const KEEP_ALIVE = fileURLToPath(new URL('./prismKeepAlive.cjs', import.meta.url));

export interface PrismProxy {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

export async function startPrism(spec: string, upstream: string): Promise<PrismProxy> {
  // port 0: Prism binds a free port itself and announces it (a port picked here and bound by
  // Prism seconds later, once the spec is loaded, could be taken in between on a busy machine)
  const child = spawn(
    process.execPath,
    ['--require', KEEP_ALIVE, PRISM, 'proxy', path.resolve(ROOT, spec), upstream, '--errors', '-p', '0', '-h', '127.0.0.1'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    // a Prism that did not start in time is killed: left running, its pipes would keep the
    // test process alive after the failure
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`prism did not start within 60 s:\n${out}`));
    }, 60_000);
    const check = () => {
      const listening = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
