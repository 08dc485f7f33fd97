// 5. The peer: the upstream JS agent server (`langgraphjs dev` from @langchain/langgraph-cli,
// installed on demand by scripts/upstream/langgraphCli.ts) serving the same echo graph file.
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_GRAPH, writeBenchGraph } from './graph.ts';
import type { Child } from './proc.ts';
import {
  ensureUpstreamCli,
  stageProject,
  startUpstreamDev,
  UPSTREAM_CLI_PACKAGE,
  UPSTREAM_CLI_VERSION,
  type UpstreamInstall,
  type UpstreamProject,
} from '../upstream/langgraphCli.ts';

export const PEER_PACKAGE = UPSTREAM_CLI_PACKAGE;
export const PEER_VERSION = process.env.BENCH_PEER_VERSION ?? UPSTREAM_CLI_VERSION;

let peer: { install: UpstreamInstall; project: UpstreamProject } | undefined;

/** Installs the CLI (and the LangGraph packages the graph imports) unless already there. */
export async function ensurePeer(log: (s: string) => void): Promise<string> {
  const install = await ensureUpstreamCli((line) => log(`  ${line}`), PEER_VERSION);
  const project = stageProject(install, 'bench', (dir) => {
    writeBenchGraph(dir);
    fs.writeFileSync(
      path.join(dir, 'langgraph.json'),
      JSON.stringify({ node_version: '20', graphs: { [BENCH_GRAPH]: './echo-graph.ts:graph' }, dependencies: ['.'] }, null, 2),
    );
  });
  process.once('exit', () => project.remove());
  peer = { install, project };
  return install.version;
}

/**
 * `fresh`: without the state an earlier start left (the dev server keeps its threads and runs
 * in .langgraph_api/ of the project and loads them when it starts), as a first start has none.
 */
export async function startPeer(options: { fresh?: boolean } = {}): Promise<Child> {
  if (!peer) throw new Error('ensurePeer() first');
  if (options.fresh) fs.rmSync(path.join(peer.project.dir, '.langgraph_api'), { recursive: true, force: true });
  return startUpstreamDev(peer.install, peer.project);
}
