// What a CI step left on the machine outside the run's own folders: `before <state>` notes the
// names in the temporary folders (/tmp, /var/tmp) and podman's images, containers, pods,
// volumes and networks; `after <state> <step>` prints those made since whose names are the
// suites' (agentplane…, and the test prefixes below), with the disk's free space. The runner
// already fails a run on what a test file left in its own TMPDIR and on the images of its run
// (scripts/run-tests.ts); this names what escaped both — a process writing to /tmp directly, a
// deployment's pod or image a test did not remove. On a machine other runs share, what they make
// meanwhile is listed too, so it fails the step only with CI_LEFTOVERS=fail (a CI machine of its own).
import fs from 'node:fs';
import os from 'node:os';
import { execFileSync } from 'node:child_process';

/** The names the suites give what they make (their tempDir prefixes, podman objects). */
const SUITE_NAMES =
  /^(agentplane|localhost\/agentplane)|^(paged|grouped|groups|load-after|import-graph|log-flush|store-bytes|ts-loader|ts-hooks|bench-|types-|foreign-)/;
const TEMP_FOLDERS = [os.tmpdir(), '/var/tmp'];
const PODMAN_LISTS: Record<string, string[]> = {
  images: ['images', '--format', '{{.Repository}}:{{.Tag}}'],
  containers: ['ps', '--all', '--format', '{{.Names}}'],
  pods: ['pod', 'ps', '--format', '{{.Name}}'],
  volumes: ['volume', 'ls', '--format', '{{.Name}}'],
  networks: ['network', 'ls', '--format', '{{.Name}}'],
};

type State = Record<string, string[]>;

function snapshot(): State {
  const state: State = {};
  for (const dir of TEMP_FOLDERS) state[dir] = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  for (const [kind, args] of Object.entries(PODMAN_LISTS)) {
    try {
      state[`podman ${kind}`] = execFileSync('podman', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .split('\n')
        .filter(Boolean);
    } catch {
      state[`podman ${kind}`] = []; // no podman here
    }
  }
  return state;
}

/** What `after` holds that `before` did not, by kind, the suites' names only. */
export function madeSince(before: State, after: State): State {
  const made: State = {};
  for (const [kind, names] of Object.entries(after)) {
    const had = new Set(before[kind] ?? []);
    const fresh = names.filter((name) => !had.has(name) && SUITE_NAMES.test(name));
    if (fresh.length) made[kind] = fresh;
  }
  return made;
}

/**
 * The images to remove at the end of a CI run: those the run built under the suites' names. The
 * container suite keeps one image of each kind between runs (test/containers/support/staleImages.ts),
 * a cache for a developer's next run; a CI machine has no next run, and an image there is a trace.
 * What was there before the run began (a developer's cache) is not named.
 */
export function imagesBuiltSince(start: State, now: State): string[] {
  return madeSince({ 'podman images': start['podman images'] ?? [] }, { 'podman images': now['podman images'] ?? [] })['podman images'] ?? [];
}

const [command, file, step = 'the step'] = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1]}` && file) {
  if (command === 'before') fs.writeFileSync(file, JSON.stringify(snapshot()));
  else if (command === 'remove-images') {
    const built = imagesBuiltSince(JSON.parse(fs.readFileSync(file, 'utf8')) as State, snapshot());
    for (const image of built) {
      try {
        execFileSync('podman', ['rmi', image], { stdio: 'ignore' });
      } catch {
        // in use by a container (never forced: it may be another run's), removed meanwhile, or no podman here
      }
    }
    if (built.length) console.log(`removed the images this run built: ${built.join(', ')}`);
  } else if (command === 'after') {
    const made = madeSince(JSON.parse(fs.readFileSync(file, 'utf8')) as State, snapshot());
    const { bavail, bsize } = fs.statfsSync(os.tmpdir());
    const free = `${((bavail * bsize) / 1024 ** 3).toFixed(1)} GB free`;
    const kinds = Object.entries(made);
    if (kinds.length === 0) console.log(`leftovers after ${step}: none (${free})`);
    else {
      console.error(`\n⚠ left on the machine after ${step} (${free}):`);
      for (const [kind, names] of kinds) console.error(`  ${kind}: ${names.slice(0, 10).join(', ')}${names.length > 10 ? `, … (${names.length} in all)` : ''}`);
      if (process.env.CI_LEFTOVERS === 'fail') process.exit(1);
    }
  }
}
