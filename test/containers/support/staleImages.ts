// The images the container suite keeps between runs, each under a tag naming what went into it
// (the base, the server of a checkout, the toolchain, the test images of node and PostgreSQL): a
// new tag each time an input changes (a checkout's every edit is a new server image), and none
// was ever removed — a machine held 36 server images and 18 PostgreSQL ones (258 GB counted).
// Once the suite's shared layers are built, the older tags of each are removed: one of each is
// kept, the current, and those made in the last half hour, which another checkout's run on the
// same machine may be using now (an image a container uses is never removed).
import { execFileSync } from 'node:child_process';
import { CONTAINERS_CONF } from './nodeImage.ts';

/** The repositories of the images the suite keeps, one tag each. */
export const SHARED_REPOSITORIES = [
  'localhost/agentplane-base',
  'localhost/agentplane-server',
  'localhost/agentplane-toolchain',
  'localhost/agentplane-test-node',
  'localhost/agentplane-test-postgres',
];
/** An older tag younger than this is kept: a run of another checkout may have just built it. */
export const RECENT_MS = 30 * 60_000;

export interface ListedImage {
  /** repository:tag names. */
  names: string[];
  /** Seconds since the epoch. */
  created: number;
}

/** The names among `images` to remove: those of the shared repositories, not current, not recent. */
export function staleNames(images: ListedImage[], current: string[], now = Date.now()): string[] {
  const kept = new Set(current);
  return images.flatMap(({ names, created }) => {
    if (names.some((name) => kept.has(name)) || now - created * 1000 < RECENT_MS) return [];
    return names.filter((name) => SHARED_REPOSITORIES.includes(name.slice(0, name.lastIndexOf(':'))));
  });
}

/** Removes the older tags of the shared images (see staleNames); what a container uses stays. Returns what it removed. */
export function removeStaleSharedImages(current: string[]): string[] {
  const podman = (args: string[]) =>
    execFileSync('podman', args, { encoding: 'utf8', env: { ...process.env, CONTAINERS_CONF }, stdio: ['ignore', 'pipe', 'pipe'] });
  const listed = JSON.parse(podman(['images', '--format', 'json', ...SHARED_REPOSITORIES.flatMap((repo) => ['--filter', `reference=${repo}`])]) || '[]') as {
    Names?: string[];
    Created: number;
  }[];
  const removed: string[] = [];
  for (const name of staleNames(
    listed.map((image) => ({ names: image.Names ?? [], created: image.Created })),
    current,
  )) {
    try {
      podman(['rmi', name]);
      removed.push(name);
    } catch {
      // in use by a container, or removed meanwhile by another run
    }
  }
  return removed;
}
