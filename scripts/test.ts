// `npm test`: the static checks (npm run typecheck, lint, format:check) and the test suites
// (npm run test:suites) at the same time. The suites keep both cores busy ~85% of their
// run; the checks, one after another at a lower scheduling priority, fill the rest, where
// run before the suites they added ~30 s to every run. The suites' output streams as they
// run; each check's output is printed after them. Fails when any of them fails.
import os from 'node:os';
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'lint', 'format:check'];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const passOn = process.argv.slice(2);

/** Runs `npm run -s <script>`; resolves with its exit code and, when `capture`, its output. */
function run(script: string, args: string[], capture: boolean, priority = 0): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '-s', script, ...(args.length ? ['--', ...args] : [])], {
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      shell: process.platform === 'win32',
    });
    // set before npm starts the check's own process, which inherits it
    if (priority && child.pid) {
      try {
        os.setPriority(child.pid, priority);
      } catch {
        // not permitted here: the check runs at the normal priority
      }
    }
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const checks = (async () => {
  const results: { script: string; code: number; output: string; seconds: number }[] = [];
  for (const script of CHECKS) {
    const started = Date.now();
    results.push({ script, ...(await run(script, [], true, 10)), seconds: (Date.now() - started) / 1000 });
  }
  return results;
})();
const suites = await run('test:suites', passOn, false);
const checked = await checks;
for (const { script, code, output, seconds } of checked) {
  console.log(`\n== npm run ${script}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds.toFixed(1)} s`);
  if (output.trim()) console.log(output.trimEnd());
}
const failed = [...checked.filter((c) => c.code !== 0).map((c) => c.script), ...(suites.code !== 0 ? ['test:suites'] : [])];
if (failed.length) console.error(`\nnpm test failed: ${failed.join(', ')}`);
process.exit(failed.length ? 1 : 0);
