// A git repository made for a test, to deploy with the local deployer.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../support/server.ts';

export interface FixtureRepository {
  dir: string;
  git: (...args: string[]) => string;
  /** Writes the files and the symbolic links (name → target), commits, returns the sha. */
  commit: (files: Record<string, string>, message: string, links?: Record<string, string>) => string;
}

export function makeRepository(): FixtureRepository {
  const dir = tempDir('agentplane-fixture-repo-');
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' },
    }).trim();
  const commit = (files: Record<string, string>, message: string, links: Record<string, string> = {}) => {
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    for (const [name, target] of Object.entries(links)) {
      fs.rmSync(path.join(dir, name), { force: true });
      fs.symlinkSync(target, path.join(dir, name));
    }
    git('add', '-A');
    git('commit', '-q', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  git('init', '-q', '-b', 'main');
  // the build clones it as the deployment's own user
  fs.chmodSync(dir, 0o755);
  return { dir, git, commit };
}

/** A plain-function graph answering every message with a fixed prefix (and GREETING, a secret, when set). */
export function graphSource(reply: string): string {
  return `// a plain-function graph: answers every message with a fixed prefix
export async function echo(state) {
  const last = [...(state.messages ?? [])].reverse().find((m) => m.type === 'human' || m.role === 'user');
  return { messages: [{ role: 'assistant', content: '${reply}: ' + (last?.content ?? '') + ' / ' + (process.env.GREETING ?? 'no secret') }] };
}
`;
}
