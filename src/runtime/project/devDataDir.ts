// Where `agentplane dev` keeps its data (journal, snapshots, the API key file) when --data and
// DATA_DIR say nothing: `.langgraph_api/` in the project folder, where the upstream dev server
// keeps its state and which LangGraph projects' .gitignore already covers (upstream's dev adds
// it). A `data/` an earlier agentplane dev made there is kept, so nobody loses threads or keys.
import fs from 'node:fs';
import path from 'node:path';

export const DEV_DATA_DIR = '.langgraph_api';
const EARLIER_DEV_DATA_DIR = 'data';
/** Files only an agentplane store writes: a `data/` of the project's own (CSV, fixtures) is never taken. */
const STORE_FILES = ['store.json', 'api-keys.json', 'journal'];

export interface DevDataDir {
  dir: string;
  /** true when it is the `data/` of an earlier agentplane dev, kept. */
  earlier: boolean;
}

export function devDataDir(projectDir: string, exists: (file: string) => boolean = fs.existsSync): DevDataDir {
  const earlier = path.join(projectDir, EARLIER_DEV_DATA_DIR);
  if (STORE_FILES.some((file) => exists(path.join(earlier, file)))) return { dir: earlier, earlier: true };
  return { dir: path.join(projectDir, DEV_DATA_DIR), earlier: false };
}

/**
 * Lists `.langgraph_api` in the project's .gitignore (creating it) when it is not there yet, as
 * upstream's dev does, so the API key file in it is never committed; true when it was added.
 */
export function ignoreDevDataDir(projectDir: string): boolean {
  const file = path.join(projectDir, '.gitignore');
  const content = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (content.includes(DEV_DATA_DIR)) return false;
  fs.appendFileSync(
    file,
    `${content && !content.endsWith('\n') ? '\n' : ''}# agentplane dev / LangGraph API state (the API key file is in it)\n${DEV_DATA_DIR}/\n`,
  );
  return true;
}
