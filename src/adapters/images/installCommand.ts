// The install step of a project that names none, read from the files in its folder: shared by
// the image build and the local target's build (which depends on this folder, never the reverse).
import fs from 'node:fs';
import path from 'node:path';

/** What upstream's builders do when `install_command` is null: the lockfile decides. */
export function detectInstallCommand(dir: string): string | null {
  const has = (file: string) => fs.existsSync(path.join(dir, file));
  if (has('package-lock.json') || has('npm-shrinkwrap.json')) return 'npm ci';
  if (has('pnpm-lock.yaml')) return 'pnpm install --frozen-lockfile';
  if (has('yarn.lock')) return 'yarn install --frozen-lockfile';
  if (has('bun.lockb') || has('bun.lock')) return 'bun install --frozen-lockfile';
  if (has('package.json')) return 'npm install';
  return null;
}
