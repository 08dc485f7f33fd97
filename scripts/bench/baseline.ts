// `npm run bench -- --baseline <git ref>`: the ref is checked out in a git worktree under
// .bench/ and run beside the current tree in the same bench, so every figure has a
// same-machine, same-hour figure to be read against (a figure from another day on a shared
// machine says more about the machine than about the code).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from './graph.ts';

export interface Baseline {
  /** The ref as given (a tag, a branch, a commit). */
  ref: string;
  commit: string;
  /** The worktree's root, where its bin/agentplane.js is. */
  root: string;
}

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${(result.stderr || result.stdout).slice(-2000)}`);
  return result.stdout.trim();
}

const READY = '.bench-baseline-ready';

type Pins = Record<string, string>;
const pinsOf = (packageJson: string): Pins => {
  const pkg = JSON.parse(packageJson) as { dependencies?: Pins; devDependencies?: Pins };
  return { ...pkg.dependencies, ...pkg.devDependencies };
};

/**
 * Whether the current tree's node_modules can stand in for the ref's: the lockfiles are the
 * same, or every dependency the ref pins exactly is installed here at that very version (the
 * ref then lacks only packages added since, which it never imports).
 */
export function nodeModulesFit(refLock: string, ourLock: string, refPackageJson: string, installedVersion: (name: string) => string | null): boolean {
  if (refLock === ourLock) return true;
  return Object.entries(pinsOf(refPackageJson)).every(([name, version]) => installedVersion(name) === version);
}

const installedHere = (name: string): string | null => {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
};

/** The ref's worktree, made and built once per commit (later benches reuse it). */
export function prepareBaseline(ref: string, log: (s: string) => void): Baseline {
  const commit = run('git', ['rev-parse', '--verify', `${ref}^{commit}`], ROOT);
  const root = path.join(ROOT, '.bench', `baseline-${commit.slice(0, 12)}`);
  if (fs.existsSync(path.join(root, READY))) {
    log(`baseline ${ref} (${commit.slice(0, 7)}): reusing ${path.relative(ROOT, root)}`);
    return { ref, commit, root };
  }
  if (fs.existsSync(root)) run('git', ['worktree', 'remove', '--force', root], ROOT);
  run('git', ['worktree', 'prune'], ROOT);
  log(`baseline ${ref} (${commit.slice(0, 7)}): git worktree add ${path.relative(ROOT, root)}`);
  run('git', ['worktree', 'add', '--detach', root, commit], ROOT);
  const fits = nodeModulesFit(
    fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'),
    fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'),
    fs.readFileSync(path.join(root, 'package.json'), 'utf8'),
    installedHere,
  );
  if (fits) {
    // hard links: no copy of the bytes, and nothing the baseline does can change ours in place
    log('  node_modules: hard-linked from the current tree (same pinned versions)');
    run('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(root, 'node_modules')], ROOT);
  } else {
    // from npm's cache when it holds every pinned version; a fresh machine's does not, and
    // fetches what is missing from the registry
    log('  node_modules: npm ci --prefer-offline (the pinned versions differ)');
    run('npm', ['ci', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], root);
  }
  // a tree from before the build step (d5486dc) runs its sources through tsx: nothing to build
  if ((JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts?.build) {
    log('  npm run build');
    run('npm', ['run', 'build'], root);
  } else log('  no build script: its sources run as they are');
  fs.writeFileSync(path.join(root, READY), `${commit}\n`);
  return { ref, commit, root };
}

/** `--baseline <ref>` or `--baseline=<ref>` from the command line, else BENCH_BASELINE, else none. */
export function baselineRefFrom(argv: string[], env: NodeJS.ProcessEnv): string | null {
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--baseline') return argv[i + 1] ?? null;
    if (argv[i].startsWith('--baseline=')) return argv[i].slice('--baseline='.length);
  }
  return env.BENCH_BASELINE || null;
}
