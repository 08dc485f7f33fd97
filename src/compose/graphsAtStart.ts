// The project's graphs as a start needs them (issues 86 and 91). A start checks that every graph
// loads before its first 200, as upstream refuses to start on a graph that does not; that load
// was LangGraph's import on the main thread (~550 files, ~40% of a start). Where `serve` compiled
// the project (projectCompilation.ts) and an earlier start's check loaded these very graphs with
// nothing they depend on changed since (shared/graphCheckRecord.ts), the start answers with their
// kinds alone (GraphRegistry.deferred) and this thread loads them after its first 200 (the
// start's warm-ups, or the first read that needs a graph). Every other start loads them here
// first, as before: dev (its reload watches what this thread loads), a server in process, a
// project through tsx, one whose graphs are JavaScript; a successful load is then recorded.
//
// If the deferred load fails after all (an environment variable the module reads at its top was
// there before and is not now, a library changed in place), the server does what upstream does
// with a graph that does not load: it does not serve. The same message a refused start gives is
// logged, the record is removed (the next start checks before it answers, and refuses), and
// `serve` stops the server and exits 1 (runtime/lateRefusal.ts); the reads waiting for the graphs
// meanwhile answer the error. Answering each graph's reads with the error instead would keep a
// server up whose restart refuses: a supervisor would not see it as failing.
import { GraphRegistry, graphSource, type SaverSource } from '../domain/agent/graphs/graphs.ts';
import type { ServerConfig } from '../runtime/config.ts';
import type { Logger } from '../runtime/logging/logger.ts';
import { refuseLate } from '../runtime/lateRefusal.ts';
import { forgetGraphCheck, readGraphCheck, writeGraphCheck, type GraphCheckSubject, type GraphKind } from '../shared/graphCheckRecord.ts';
import { projectCompiledAhead } from '../shared/projectModule.ts';

/** The check this start can be answered from: serve's compile of every graph module; undefined where the graphs load here first. */
export async function graphCheckSubject(config: ServerConfig, baseDir: string, functions: 'factory' | 'plain'): Promise<GraphCheckSubject | undefined> {
  const graphs = config.project.graphs ?? {};
  if (config.mock || !Object.keys(graphs).length) return undefined;
  const compiled = await projectCompiledAhead();
  if (!compiled?.set) return undefined;
  const located = Object.entries(graphs).map(([id, entry]) => [id, entry, graphSource(entry, baseDir)] as const);
  if (!located.every(([, , source]) => source !== undefined && compiled.modules.has(source.file))) return undefined;
  // each entry as its module's absolute path and export (its other fields as written): the folder of the project file is no part of the check
  const resolved = Object.fromEntries(
    located.map(([id, entry, source]) => [id, { ...(typeof entry === 'object' ? entry : {}), path: source!.file, export: source!.exportName }]),
  );
  return { set: compiled.set, modules: compiled.modules, graphs: resolved, functions };
}

export interface GraphsAtStart {
  subject: GraphCheckSubject | undefined;
  /** Loads the graphs on this thread (loadGraphs); its error is the start's refusal. */
  load: () => Promise<GraphRegistry>;
  checkpointer: SaverSource;
  log: Logger;
}

/** The start's graphs: deferred where the check is remembered, else loaded now (and the check recorded). */
export async function graphsAtStart({ subject, load, checkpointer, log }: GraphsAtStart): Promise<GraphRegistry> {
  const kinds = subject && readGraphCheck(subject);
  if (subject && kinds) return GraphRegistry.deferred(kinds, () => load().catch((err: Error) => lateFailure(subject, err, log)), checkpointer);
  // a failure refuses the start here, as it always did, and is never recorded
  const graphs = await load();
  if (subject) {
    const found = Object.fromEntries(graphs.ids().map((id): [string, GraphKind] => [id, graphs.get(id)!.kind]));
    // after this turn: the record's hashes are no part of the start's path
    setImmediate(() => void writeGraphCheck(subject, found));
  }
  return graphs;
}

function lateFailure(subject: GraphCheckSubject, err: Error, log: Logger): never {
  forgetGraphCheck(subject);
  log.error('a graph did not load after the start; the server stops, as a start with it refuses', { error: err.message });
  refuseLate(err);
  throw err;
}
