// The upstream JS agent server (`langgraphjs dev` from @langchain/langgraph-cli), pinned and
// installed from npm on demand into a git-ignored cache (.cache/upstream). Two users: the
// bench's peer and the differential suite (test/differential), which sends every scenario to
// it and to agentplane. A project is served from a fresh copy inside the install, so its
// imports of @langchain/* resolve to the pinned packages, and the dev server's persisted
// in-memory state (.langgraph_api in its working directory) starts empty every time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, startChild, type Child } from '../bench/proc.ts';
import { markUsed, ownFolderIn, removeOrphans, removeUnused, stagingFor } from './installCache.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const UPSTREAM_CLI_PACKAGE = '@langchain/langgraph-cli';
/**
 * 1.5.1 is the release built on the same LangGraph (@langchain/langgraph 1.4.18,
 * @langchain/core 1.2.13) agentplane runs, so differences are the servers', not the
 * libraries'. (2.0.0 needs @langchain/langgraph-checkpoint ^1.2.2, which the registry here
 * does not have.)
 */
export const UPSTREAM_CLI_VERSION = '1.5.1';
/** Installed beside the CLI, pinned: what graphs import (npm would otherwise pick the newest). */
const UPSTREAM_WITH = [
  '@langchain/langgraph@1.4.18',
  '@langchain/core@1.2.13',
  '@langchain/langgraph-checkpoint@1.1.5',
  '@langchain/langgraph-sdk@1.12.4',
  'typescript@5.9.3',
  'zod@4.6.7',
  'hono@4.13.19',
  // the differential corpus's model clients and agent libraries (test/fixtures/corpus-project), as agentplane's devDependencies pin them
  '@langchain/openai@1.5.8',
  '@langchain/anthropic@1.5.11',
  'langchain@1.5.14',
  'deepagents@1.14.1',
];
const CACHE = path.join(ROOT, '.cache/upstream');
const INSTALL_TIMEOUT_MS = Number(process.env.AGENTPLANE_UPSTREAM_INSTALL_TIMEOUT_MS ?? 300_000);
const ATTEMPTS = 2;
/** Written last: an install without it was interrupted and is not used. */
const COMPLETE = '.complete.json';

export interface UpstreamInstall {
  dir: string;
  version: string;
  /** Milliseconds the install took (0 when the cache had it). */
  installMs: number;
}

/** The install directory for a version and its pinned companions (a new pin is a new directory). */
function installDir(version: string): string {
  const key = [version, ...UPSTREAM_WITH].join(' ');
  let hash = 0;
  for (const ch of key) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return path.join(CACHE, `langgraph-cli-${version}-${hash.toString(36)}`);
}

/**
 * Installs the CLI unless the cache has it. The install goes to a private directory renamed
 * into place at the end, so concurrent test files and interrupted runs never see half an
 * install; a failed attempt (a registry hiccup) is retried once; each attempt is time-bounded.
 */
export async function ensureUpstreamCli(log: (line: string) => void = () => {}, version = UPSTREAM_CLI_VERSION): Promise<UpstreamInstall> {
  const dir = installDir(version);
  fs.mkdirSync(CACHE, { recursive: true });
  removeOrphans(CACHE);
  removeUnused(CACHE, COMPLETE, dir);
  markUsed(dir, COMPLETE);
  if (fs.existsSync(path.join(dir, COMPLETE))) return { dir, version, installMs: 0 };
  const started = performance.now();
  const args = [
    'install',
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    '--prefer-offline',
    // npm 11's resolver loops on the LangGraph packages' overlapping peer ranges of
    // @langchain/core, so the peers are pinned and installed explicitly
    '--legacy-peer-deps',
    `${UPSTREAM_CLI_PACKAGE}@${version}`,
    ...UPSTREAM_WITH,
  ];
  let lastError = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const staging = stagingFor(dir);
    fs.writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: 'agentplane-upstream-server', private: true, type: 'module' }, null, 2));
    log(`installing ${UPSTREAM_CLI_PACKAGE}@${version} into ${path.relative(ROOT, dir)} (attempt ${attempt}: npm ${args.join(' ')})`);
    const { code, output } = await runNpm(args, staging, INSTALL_TIMEOUT_MS);
    const installed = readVersion(staging);
    if (code === 0 && installed === version) {
      fs.writeFileSync(path.join(staging, COMPLETE), JSON.stringify({ version, with: UPSTREAM_WITH }));
      try {
        fs.renameSync(staging, dir);
      } catch {
        // another process finished first: its install is as good as this one
        fs.rmSync(staging, { recursive: true, force: true });
        if (!fs.existsSync(path.join(dir, COMPLETE))) throw new Error(`${dir} exists but is not a complete install: delete it and run again`);
      }
      return { dir, version, installMs: performance.now() - started };
    }
    fs.rmSync(staging, { recursive: true, force: true });
    lastError = `exit ${code}: ${
      output
        .split('\n')
        .filter((l) => /err|ERR|error|timed out/.test(l))
        .slice(-8)
        .join(' | ') || output.slice(-600)
    }`;
  }
  throw new Error(`npm ${args.join(' ')} failed ${ATTEMPTS} times (last: ${lastError})`);
}

function readVersion(dir: string): string | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', UPSTREAM_CLI_PACKAGE, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

export function runNpm(args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // own process group, so a timeout ends npm's children (its lifecycle scripts) too
    const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d) => (output = (output + d).slice(-20_000)));
    child.stderr.on('data', (d) => (output = (output + d).slice(-20_000)));
    const timer = setTimeout(() => {
      output += `\n(error: timed out after ${timeoutMs / 1000} s)`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: -1, output: `${output}\n(error: ${err.message})` });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export interface UpstreamProject {
  /** The copy the server runs in (inside the install, so its imports resolve there). */
  dir: string;
  remove(): void;
}

/** A fresh copy of a project folder inside the install (or files written by `write`). */
export function stageProject(install: UpstreamInstall, name: string, from: string | ((dir: string) => void)): UpstreamProject {
  const projects = path.join(install.dir, 'projects');
  removeOrphans(projects);
  const dir = ownFolderIn(projects, name);
  if (typeof from === 'string') fs.cpSync(from, dir, { recursive: true, filter: (src) => !/(^|[\\/])(node_modules|\.langgraph_api)$/.test(src) });
  else from(dir);
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface StartUpstreamOptions {
  env?: Record<string, string>;
  /** Headers for the readiness probe (a project with custom auth guards /ok too). */
  probeHeaders?: Record<string, string>;
  timeoutMs?: number;
}

/** Said by upstream's server when its port was taken before it bound it (its watcher then lives on, serving nothing). */
const PORT_TAKEN = /EADDRINUSE/;
const PORT_TRIES = 3;

/**
 * `langgraphjs dev` in the project's folder on a free loopback port; answers once /ok does.
 * The server binds its port only after compiling the project, seconds after the port was
 * picked: if something took the port meanwhile, it starts again on another.
 */
export async function startUpstreamDev(install: UpstreamInstall, project: UpstreamProject, options: StartUpstreamOptions = {}): Promise<Child> {
  const pkgDir = path.join(install.dir, 'node_modules', UPSTREAM_CLI_PACKAGE);
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin?.langgraphjs ?? Object.values(pkg.bin ?? {})[0]);
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      return await startChild({
        name: 'upstream',
        command: process.execPath,
        args: [path.join(pkgDir, bin), 'dev', '--port', String(port), '--host', '127.0.0.1', '--no-browser', '--config', 'langgraph.json'],
        cwd: project.dir,
        env: { LANGSMITH_TRACING: 'false', LANGCHAIN_TRACING_V2: 'false', LOG_LEVEL: 'warn', NODE_ENV: 'production', TMPDIR: os.tmpdir(), ...options.env },
        port,
        probePath: '/ok',
        probeHeaders: options.probeHeaders,
        timeoutMs: options.timeoutMs ?? 120_000,
        failedWhen: PORT_TAKEN,
      });
    } catch (err) {
      if (attempt >= PORT_TRIES || !PORT_TAKEN.test((err as Error).message)) throw err;
    }
  }
}
