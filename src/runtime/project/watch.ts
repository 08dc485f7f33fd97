// File watching for `agentplane dev`: one recursive watcher on the project directory, changes
// debounced into one callback. Only what a reload can pick up counts: the modules graphs, auth,
// http.app and generative UI modules imported (when the caller knows them, `imported`; else any
// script, TypeScript, JSON or CSS file) and the project's own files (its project file and env
// file). Logs, data directories, node_modules and VCS folders never count, whatever was
// imported from them, because a server that writes there on each reload (say
// `agentplane dev > server.log` in the project folder) would otherwise reload forever.
import fs from 'node:fs';
import path from 'node:path';

const IGNORED_DIRS = /(^|[\\/])(node_modules|\.git|\.hg|\.svn|\.jj|data|\.langgraph_api|dist|logs|\.agentplane)([\\/]|$)/;
const SOURCE_MODULE = /\.(c|m)?[jt]sx?$|\.json$|\.css$/i;

export interface ProjectWatcher {
  close(): void;
}

export interface WatchOptions {
  debounceMs?: number;
  /** Directories (the data directory) whose changes never count. */
  ignore?: string[];
  /** Files that count whatever their name (the project file, its env file). */
  projectFiles?: string[];
  /** Whether the project's code loaded this file (absolute): only such source files count. */
  imported?: (file: string) => boolean;
}

/** Whether a change to `file` (absolute) is one a reload would pick up. */
export function reloadsOn(dir: string, file: string, options: WatchOptions = {}): boolean {
  const resolved = path.resolve(file);
  if ((options.projectFiles ?? []).some((p) => path.resolve(p) === resolved)) return true;
  if (IGNORED_DIRS.test(path.relative(dir, resolved))) return false;
  if ((options.ignore ?? []).some((p) => resolved === path.resolve(p) || resolved.startsWith(path.resolve(p) + path.sep))) return false;
  return SOURCE_MODULE.test(resolved) && (options.imported?.(resolved) ?? true);
}

/** Calls `onChange` with the changed files, at most once per `debounceMs` of quiet. */
export function watchProject(dir: string, onChange: (files: string[]) => void, options: WatchOptions = {}): ProjectWatcher {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const watcher = fs.watch(dir, { recursive: true }, (_event, name) => {
    if (!name) return;
    const file = path.join(dir, name.toString());
    if (!reloadsOn(dir, file, options)) return;
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
