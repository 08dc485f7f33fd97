// A project pinned to one release of @langchain/langgraph, as a user's would be: its packages
// installed from npm on demand into a git-ignored cache (.cache/langgraph-versions, one folder
// per set of pins, reused by later runs), and the project's files copied beside them, so its
// imports resolve to the pinned release and not to agentplane's own. What a killed run left
// (a staging folder, a copy) is removed by the next, and a set of pins unused for a week goes
// (scripts/upstream/installCache.ts).
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { runNpm } from '../../scripts/upstream/langgraphCli.ts';
import { markUsed, ownFolderIn, removeOrphans, removeUnused, stagingFor } from '../../scripts/upstream/installCache.ts';
import { ROOT } from './server.ts';

const CACHE = path.join(ROOT, '.cache/langgraph-versions');
const INSTALL_TIMEOUT_MS = 240_000;
/** Written last: a folder without it is an install that did not finish, and is not used. */
const COMPLETE = '.complete.json';

export interface PinnedProject {
  dir: string;
  /** Milliseconds the install took (0 when the cache had it). */
  installMs: number;
  remove(): void;
}

/**
 * `packages` (exact pins) installed unless the cache has them, then the project folder
 * `from` copied into a fresh folder inside the install. The install is made in a private
 * folder renamed into place, so a concurrent or interrupted run never sees half of one.
 */
export async function pinnedProject(packages: string[], from: string): Promise<PinnedProject> {
  const install = path.join(CACHE, createHash('sha256').update(packages.join(' ')).digest('hex').slice(0, 16));
  const started = performance.now();
  let installMs = 0;
  fs.mkdirSync(CACHE, { recursive: true });
  removeOrphans(CACHE);
  removeUnused(CACHE, COMPLETE, install);
  markUsed(install, COMPLETE);
  if (!fs.existsSync(path.join(install, COMPLETE))) {
    const staging = stagingFor(install);
    fs.writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: 'pinned-langgraph', private: true, type: 'module' }));
    // the LangGraph packages' peer ranges of @langchain/core overlap: pinned, installed explicitly
    const args = ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline', '--legacy-peer-deps', ...packages];
    const { code, output } = await runNpm(args, staging, INSTALL_TIMEOUT_MS);
    if (code !== 0) {
      fs.rmSync(staging, { recursive: true, force: true });
      throw new Error(`npm ${args.join(' ')} failed (exit ${code}):\n${output.slice(-2000)}`);
    }
    fs.writeFileSync(path.join(staging, COMPLETE), JSON.stringify({ packages }));
    try {
      fs.renameSync(staging, install);
    } catch {
      // another run finished first: its install is as good
      fs.rmSync(staging, { recursive: true, force: true });
    }
    installMs = performance.now() - started;
  }
  removeOrphans(install);
  const dir = ownFolderIn(install, 'project');
  fs.cpSync(from, dir, { recursive: true });
  return { dir, installMs, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
