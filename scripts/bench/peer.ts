// 5. The peer: the upstream JS agent server (`langgraphjs dev` from @langchain/langgraph-cli)
// serving the same echo graph file. Installed on demand into .bench/peer (git-ignored).
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { BENCH_GRAPH, ROOT, writeBenchGraph } from './graph.ts';
import { freePort, startChild, type Child } from './proc.ts';

export const PEER_PACKAGE = '@langchain/langgraph-cli';
/**
 * Pinned so runs compare like with like: 1.5.1 is the release built on the same LangGraph
 * (@langchain/langgraph 1.4.18, @langchain/core 1.2.13) agentplane runs. (2.0.0 needs
 * @langchain/langgraph-checkpoint ^1.2.2, which the registry here does not have.)
 */
export const PEER_VERSION = process.env.BENCH_PEER_VERSION ?? '1.5.1';
const PEER_WITH = ['@langchain/langgraph@1.4.18', '@langchain/core@1.2.13', '@langchain/langgraph-checkpoint@1.1.5', '@langchain/langgraph-sdk@1.12.4', 'typescript@5.9.3'];
export const PEER_DIR = path.join(ROOT, '.bench/peer');
const INSTALL_TIMEOUT_MS = 420_000;

function installedVersion(): string | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(PEER_DIR, 'node_modules', PEER_PACKAGE, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/** Installs the CLI (and the LangGraph packages the graph imports) unless already there. */
export async function ensurePeer(log: (s: string) => void): Promise<string> {
  fs.mkdirSync(PEER_DIR, { recursive: true });
  if (installedVersion() !== PEER_VERSION) {
    fs.writeFileSync(path.join(PEER_DIR, 'package.json'), JSON.stringify({ name: 'agentplane-bench-peer', private: true, type: 'module' }, null, 2));
    // --legacy-peer-deps: npm 11's resolver loops on the LangGraph packages' overlapping
    // peer ranges of @langchain/core, so the peers are pinned and installed explicitly
    const args = ['install', '--no-save', '--no-audit', '--no-fund', '--legacy-peer-deps', `${PEER_PACKAGE}@${PEER_VERSION}`, ...PEER_WITH];
    log(`  installing ${PEER_PACKAGE}@${PEER_VERSION} into ${path.relative(ROOT, PEER_DIR)} (npm ${args.join(' ')})`);
    const { code, output } = await runNpm(args, PEER_DIR, INSTALL_TIMEOUT_MS);
    if (code !== 0 || installedVersion() === null) {
      throw new Error(`npm ${args.join(' ')} failed (exit ${code}): ${output.split('\n').filter((l) => /err|ERR|error/.test(l)).slice(-8).join(' | ') || output.slice(-600)}`);
    }
  }
  writeBenchGraph(PEER_DIR);
  fs.writeFileSync(
    path.join(PEER_DIR, 'langgraph.json'),
    JSON.stringify({ node_version: '20', graphs: { [BENCH_GRAPH]: './echo-graph.ts:graph' }, dependencies: ['.'] }, null, 2),
  );
  return installedVersion()!;
}

function runNpm(args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output = (output + d).slice(-20_000)));
    child.stderr.on('data', (d) => (output = (output + d).slice(-20_000)));
    const timer = setTimeout(() => {
      output += `\n(error: timed out after ${timeoutMs / 1000} s)`;
      child.kill('SIGTERM');
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export async function startPeer(): Promise<Child> {
  const pkg = JSON.parse(fs.readFileSync(path.join(PEER_DIR, 'node_modules', PEER_PACKAGE, 'package.json'), 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin?.langgraphjs ?? Object.values(pkg.bin ?? {})[0]);
  const port = await freePort();
  return startChild({
    name: 'peer',
    command: process.execPath,
    args: [path.join(PEER_DIR, 'node_modules', PEER_PACKAGE, bin), 'dev', '--port', String(port), '--host', '127.0.0.1', '--no-browser', '--config', 'langgraph.json'],
    cwd: PEER_DIR,
    env: { LANGSMITH_TRACING: 'false', LANGCHAIN_TRACING_V2: 'false', LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    port,
    probePath: '/ok',
    timeoutMs: 120_000,
  });
}
