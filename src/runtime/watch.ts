// File watching for `agentplane dev`: one recursive watcher on the project directory,
// changes debounced into one callback, and the paths no project edit lives in ignored.
import fs from 'node:fs';
import path from 'node:path';

const IGNORED = /(^|[\\/])(node_modules|\.git|data|dist|\.agentplane)([\\/]|$)/;

export interface ProjectWatcher {
  close(): void;
}

/** Calls `onChange` with the changed files, at most once per `debounceMs` of quiet. */
export function watchProject(dir: string, onChange: (files: string[]) => void, options: { debounceMs?: number; ignore?: string[] } = {}): ProjectWatcher {
  const ignored = (options.ignore ?? []).map((p) => path.resolve(p));
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const watcher = fs.watch(dir, { recursive: true }, (_event, name) => {
    if (!name) return;
    const file = path.join(dir, name.toString());
    if (IGNORED.test(name.toString()) || ignored.some((p) => file.startsWith(p))) return;
    pending.add(file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...pending];
      pending = new Set();
      onChange(files);
    }, options.debounceMs ?? 150);
  });
  return {
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
