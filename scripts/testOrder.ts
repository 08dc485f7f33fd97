// How long each of npm test's longer files took (seconds of its tests, process start not
// counted), read from the spec reporter's output of the lead's quiet npm test of 2026-12-01
// (main `ac34fbf4`: a file's suite, or the tests of a file alone
// in its process matched to the file by their names). scripts/run-tests.ts starts the longest
// groups first (longestFirst below), so that the run does not end on one long file while the
// other slots sit idle (the runner's own tests, 68 s, started near the end by their name).
// Only the order depends on it: a file missing here counts a second, a stale figure costs time,
// never a result. Files under 3 s are left out.
import path from 'node:path';

export const TEST_SECONDS: Record<string, number> = {
  // 68 in that run; its PostgreSQL test (~20 s of it) is an end-to-end file now, 20 in CI on
  // 59a281d7, and three of its runner runs fewer since (~11-14 s alone at load 4)
  'test/scripts/run-tests.test.ts': 14,
  'test/adapters/run-workers/runWorkerPool.watchdog.test.ts': 34,
  'test/handlers/agent-server/threads.campaign.test.ts': 33,
  'test/handlers/a2a/v1/operations.subscribe.test.ts': 31,
  'test/adapters/run-workers/idleRetirement.test.ts': 30,
  'test/adapters/run-workers/runWorkerPool.test.ts': 25,
  'test/runtime/logging/logOutput.test.ts': 18,
  'test/runtime/transports/websocket/socketDoor.test.ts': 15,
  'test/adapters/postgres.explain.test.ts': 13,
  'test/domain/agent/checkpoints/checkpointer.langGraphLoads.test.ts': 11,
  'test/adapters/run-workers/runsAhead.test.ts': 9,
  'test/adapters/run-workers/runWorker.layouts.test.ts': 9,
  'test/domain/agent/graphs/declaredSchemas.test.ts': 9,
  'test/adapters/postgres.statementsPerRun.test.ts': 9,
  'test/runtime/security/tenantRates.http.test.ts': 9,
  'test/compose/areas/agentServerServices.startWarmUps.test.ts': 9,
  'test/domain/agent/runs/runEngine.fairShare.test.ts': 9,
  'test/handlers/a2a/bindings.test.ts': 8,
  'test/unit/build-script.test.ts': 8,
  'test/adapters/deploy-targets/container/containerTarget.images.test.ts': 8,
  'test/runtime/server.listenFirst.test.ts': 8,
  'test/compose/runPathWarmUp.test.ts': 8,
  'test/shared/projectCompile.test.ts': 7,
  'test/adapters/run-workers/staticSchemas.warmup.test.ts': 7,
  'test/adapters/postgres/pgStore.contract.test.ts': 7,
  'test/domain/agent/checkpoints/checkpointer.valueChains.test.ts': 6,
  'test/handlers/a2a/bindings.input.test.ts': 6,
  'test/handlers/agent-server/protocol.test.ts': 6,
  'test/adapters/run-workers/firstReads.test.ts': 6,
  'test/adapters/run-storage/pgRunClaims.test.ts': 6,
  'test/domain/agent/checkpoints/checkpointer.sharedValues.test.ts': 6,
  'test/adapters/run-workers/runWorker.streamWhileBusy.test.ts': 5,
  'test/domain/tenantQuotas.threadsMadeForRuns.test.ts': 5,
  'test/adapters/run-workers/runWorkerPool.tenantShare.test.ts': 5,
  'test/adapters/postgres/pgStore.test.ts': 4,
  'test/shared/projectModule.layouts.test.ts': 4,
  'test/handlers/agent-server/protocol.threadStream.test.ts': 4,
  'test/adapters/images/buildImage.serverTag.test.ts': 4,
  'test/adapters/embedded/journalStore.groupKeys.test.ts': 4,
  'test/domain/agent/threads/retention.test.ts': 4,
  'test/runtime/project/project.test.ts': 4,
  'test/adapters/run-workers/orderedCalls.checkpointWrites.test.ts': 4,
  'test/domain/agent/checkpoints/checkpointer.newest.test.ts': 4,
  'test/shared/processTempDir.test.ts': 4,
  'test/handlers/agent-server/protocol.replicas.test.ts': 4,
  'test/handlers/agent-server/assistants.config.test.ts': 4,
  'test/adapters/postgres/pgMigrations.test.ts': 4,
  'test/adapters/embedded/packedRecords.test.ts': 4,
  'test/adapters/embedded/journalStore.test.ts': 4,
  'test/handlers/a2a/rpc.concurrency.test.ts': 3,
  'test/adapters/postgres/pgDeployments.test.ts': 3,
  'test/adapters/run-storage/pgRunStore.test.ts': 3,
  'test/adapters/postgres/pgCoordination.test.ts': 3,
  'test/adapters/run-workers/runWorkerPool.warmup.test.ts': 3,
  'test/runtime/transports/http/storableText.test.ts': 3,
  'test/scripts/compileTests.test.ts': 3,
  'test/domain/webhooks/webhookNotifier.test.ts': 3,
  'test/adapters/run-storage/pgRunClaims.unreadable.test.ts': 3,
  'test/compose/backend.loadAfterServing.test.ts': 3,
  'test/domain/agent/graphs/graphRunners.loadRunModules.test.ts': 3,
  'test/adapters/images/baseImage.libraries.test.ts': 3,
  'test/adapters/run-workers/runWorker.compiled.test.ts': 3,
  'test/runtime/project/customRoutes.test.ts': 3,
  'test/handlers/a2a/v1.test.ts': 3,
  'test/domain/tenantQuotas.http.test.ts': 3,
  'test/runtime/pages/servedSpec.test.ts': 3,
  'test/handlers/control-plane/agentAuth.default.test.ts': 3,
  'test/handlers/agent-server/protocol.plainGraphs.test.ts': 3,
  'test/adapters/postgres/pgCrons.test.ts': 3,
  'test/adapters/run-workers/staticSchemaSyntax.test.ts': 3,
  'test/domain/agent/threads/threadState.refusedWrites.test.ts': 3,
  'test/adapters/embedded/recordGroups.test.ts': 3,
  'test/domain/agent/runs/runEndRecord.test.ts': 3,
  'test/domain/agent/protocol/commands.binding.test.ts': 3,
  'test/adapters/run-workers/staticSchemas.layouts.test.ts': 3,
};

/** A group's expected seconds: its files' (a second for one not in TEST_SECONDS) and a second for its process's start. */
export function expectedSeconds(group: string[], seconds: Record<string, number> = TEST_SECONDS): number {
  return 1 + group.reduce((sum, file) => sum + (seconds[file.split(path.sep).join('/')] ?? 1), 0);
}

/**
 * The groups of files (each run by one test process) by `rank` (a suite's place in the start
 * order), then the longest expected first, then by their first file's name. Node's runner takes
 * the next as a slot frees, so the longest start while there is still work for the other slots.
 */
export function longestFirst(groups: string[][], rank: (group: string[]) => number, seconds: Record<string, number> = TEST_SECONDS): string[][] {
  return [...groups].sort((a, b) => rank(a) - rank(b) || expectedSeconds(b, seconds) - expectedSeconds(a, seconds) || a[0]!.localeCompare(b[0]!));
}

/**
 * npm test's files whose subject loads a TypeScript module uncompiled (a project's graphs read
 * for their types, a route or embedder module, tsx's own registration): the first such load
 * registers tsx's loader in the test process, and every module loaded after it there crosses the
 * loader's thread, the rest of its group's files with it (found by logging module.register in each
 * test process of their folders). Each runs last of its folder's files (typeScriptLast), so that
 * no file after it in its process pays for it. test/shared's loader files, which assert on tsx's
 * registration itself, run alone instead (ALONE_FILES).
 */
export const LOADS_TYPESCRIPT = new Set([
  'test/compose/areas/agentServerServices.startWarmUps.test.ts',
  'test/domain/agent/graphs/declaredSchemas.test.ts',
  'test/domain/memory/embeddings.test.ts',
  'test/handlers/agent-server/threads.clientShapes.test.ts',
  'test/runtime/project/customRoutes.test.ts',
]);

/**
 * npm test's files that assert on tsx's registration in their own process (none yet, or tsx with
 * their own tsconfig): each runs in a process of its own. Left in their folder's groups, they
 * had landed in different processes only by the count of the folder's files: a file added to
 * test/shared put projectCompile's registration before layouts' tsconfig alias (CI on 672a4d3a,
 * as on 804f01b3).
 */
export const ALONE_FILES = new Set([
  'test/shared/projectCompile.test.ts',
  'test/shared/projectModule.layouts.test.ts',
  'test/shared/typescriptLoader.hooksCache.test.ts',
]);

/** A folder's files (in order) with those of LOADS_TYPESCRIPT moved to its end, each kept in order. */
export function typeScriptLast(files: string[], loadsTypeScript: ReadonlySet<string> = LOADS_TYPESCRIPT): string[] {
  const loads = (file: string) => loadsTypeScript.has(file.split(path.sep).join('/'));
  return [...files.filter((file) => !loads(file)), ...files.filter(loads)];
}

/**
 * The folders never packed with another (packFolders), for what their files assert of their
 * process: test/shared's loader files, on tsx's registration itself (no tsx yet, or tsx with their
 * own tsconfig: a file that registered tsx before them in one process failed them, CI on
 * 804f01b3); test/domain/agent/tracing's runSpans, that the process's one span provider is made
 * at its first call (test/domain/agent/threads' runs, packed before it, had made it).
 */
export const APART_FOLDERS = new Set(['test/shared', 'test/domain/agent/tracing']);

/**
 * The groups of npm test's files, a process each, with the small folders packed: `folders` holds
 * each folder's groups (its files split, in order), by folder name. A folder that fits one group
 * of fewer than `size` files shares its process with the next such folders by name, up to `size`
 * files: a process costs ~0.7 CPU-s before its first test, and 14 folders had one file each (78
 * processes, 54 packed). A folder of APART_FOLDERS is never packed; one with a file that loads
 * TypeScript uncompiled (`loadsTypeScript`, run last of its folder by typeScriptLast) ends its
 * pack, so that no other folder's file runs after tsx's registration there.
 */
export function packFolders(
  folders: { folder: string; groups: string[][] }[],
  size: number,
  loadsTypeScript: ReadonlySet<string> = LOADS_TYPESCRIPT,
  apartFolders: ReadonlySet<string> = APART_FOLDERS,
): string[][] {
  const slash = (p: string) => p.split(path.sep).join('/');
  const packed: string[][] = [];
  let open: string[] | undefined;
  for (const { folder, groups } of folders) {
    if (groups.length !== 1 || groups[0]!.length >= size || apartFolders.has(slash(folder))) {
      packed.push(...groups);
      continue;
    }
    const files = groups[0]!;
    if (open && open.length + files.length <= size) open.push(...files);
    else packed.push((open = [...files]));
    // nothing after a file that registers tsx's loader in its process
    if (files.some((file) => loadsTypeScript.has(slash(file)))) open = undefined;
  }
  return packed;
}
