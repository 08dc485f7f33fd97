// `npm test`: the static checks (npm run typecheck, lint, format:check) and the test suites
// (npm run test:suites) at the same time. The suites keep both cores busy ~85% of their
// run; the checks, at a lower scheduling priority, fill the rest, where run before the suites
// they added ~30 s to every run. On a fresh clone (no caches) the checks cost ~110 CPU-s and
// much of it is left when the suites end: they run in two chains, one a core, so that this
// tail uses both cores rather than one (a 2-core machine; each check is one thread). The
// suites' output streams as they run; each check's output is printed after them, in the
// order below. Fails when any of them fails. Each script's command is package.json's, run by the
// shell with node_modules/.bin on PATH as npm would: not through `npm run`, whose own start
// costs ~0.5 CPU-s a script (four here).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type SpawnOptions } from 'node:child_process';

/**
 * The checks, one chain a core, each chain's checks one after another (about equal cold CPU: in a
 * fresh clone the typecheck ~12-15 CPU-s single-threaded, the format check ~30, the lint ~35).
 */
const CHAINS = [['typecheck', 'format:check'], ['lint']];
const SCRIPTS = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
const BIN = path.resolve('node_modules', '.bin');
const passOn = process.argv.slice(2);

/** Quoted for the shell, as `npm run script -- args` passes them. */
const quoted = (arg: string) => (process.platform === 'win32' ? `"${arg.replace(/"/g, '""')}"` : `'${arg.replace(/'/g, `'\\''`)}'`);

/**
 * Runs package.json's `script` (as `npm run -s` does) at `priority` (a nice value); resolves with
 * its exit code and, when `capture`, its output. Where `nice` is, the shell starts under it, so
 * the check's processes have the priority from their first instruction (the shell starts them
 * within a millisecond: set on the shell after the spawn, some would not).
 */
function run(script: string, args: string[], capture: boolean, priority = 0): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const command = [SCRIPTS[script], ...args.map(quoted)].join(' ');
    const options: SpawnOptions = {
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ''}` },
    };
    const posixNice = priority !== 0 && process.platform !== 'win32';
    const child = posixNice ? spawn('nice', ['-n', String(priority), 'sh', '-c', command], options) : spawn(command, { ...options, shell: true });
    if (priority && !posixNice && child.pid) {
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

type Checked = { script: string; code: number; output: string; seconds: number };
const chains = CHAINS.map(async (chain) => {
  const results: Checked[] = [];
  for (const script of chain) {
    const started = Date.now();
    results.push({ script, ...(await run(script, [], true, 10)), seconds: (Date.now() - started) / 1000 });
  }
  return results;
});
const suites = await run('test:suites', passOn, false);
const checked = (await Promise.all(chains)).flat();
for (const { script, code, output, seconds } of checked) {
  console.log(`\n== npm run ${script}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds.toFixed(1)} s`);
  if (output.trim()) console.log(output.trimEnd());
}
const failed = [...checked.filter((c) => c.code !== 0).map((c) => c.script), ...(suites.code !== 0 ? ['test:suites'] : [])];
if (failed.length) console.error(`\nnpm test failed: ${failed.join(', ')}`);
process.exit(failed.length ? 1 : 0);
