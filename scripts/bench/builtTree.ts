// A bench measures what `npm start` serves: a tree's built dist/. Where dist/ is older than the
// sources (a rebase or a checkout rewrites a source file), the tree's bin/agentplane.js runs
// the sources through tsx and says nothing, and the figures are tsx's loader: a helper's start
// read 4,190 ms of CPU that way against 1,840 built, a first run's /ok 7,975 ms against 3,248
// (scripts/bench/findings.md, h91s, session 12). So a bench refuses such a tree before it starts it.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Set to 1 to measure a tree's sources through tsx on purpose. */
export const MEASURE_SOURCES_ENV = 'BENCH_SOURCES';

/**
 * Throws when `root`'s dist/ is not a build of its sources as they are now, by the tree's own
 * check (its bin/compiledSources.js, which its bin/agentplane.js asks the same question of). A
 * tree with no such check (an older baseline, which always runs what it has) passes.
 */
export async function refuseStaleBuild(root: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env[MEASURE_SOURCES_ENV] === '1') return;
  const check = path.join(root, 'bin', 'compiledSources.js');
  if (!fs.existsSync(check)) return;
  const { compiledIsCurrent } = (await import(pathToFileURL(check).href)) as { compiledIsCurrent(root: string): boolean };
  if (!compiledIsCurrent(root)) {
    throw new Error(
      `${root}: dist/ is not a build of the sources as they are now, so bin/agentplane.js would run them through tsx: ` +
        `run \`npm run build\` there first (${MEASURE_SOURCES_ENV}=1 measures the sources on purpose)`,
    );
  }
}
