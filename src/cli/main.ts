// The CLI, and the only file that wires a process: parses the command line (commander),
// starts the server for `serve`, `dev` and `mock`, and stops it on SIGINT/SIGTERM.
// Exit codes: 0 done, 1 the server could not start or stopped on an error, 2 a usage error.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Command, CommanderError, Option } from 'commander';
import { loadConfig, withDevAuthDefaults, type ServerConfig } from '../runtime/config.ts';
import { createLogger, type Logger } from '../runtime/logging/logger.ts';
import { logSink } from '../runtime/logging/logOutput.ts';
import { PACKAGE_COMMAND, PACKAGE_VERSION as version, packagePath } from '../runtime/packageRoot.ts';
import { EXAMPLES_PROJECT_FILE, PROJECT_FILE_NAMES } from '../runtime/project/project.ts';
import { DEV_DATA_DIR, devDataDir, ignoreDevDataDir } from '../runtime/project/devDataDir.ts';
// what only `init`, `conformance` and `build` use is imported by them: serve's start does not load it
import type { BuildOptions } from './buildCommand.ts';
import { createApplication, startServer, type RunningServer } from '../compose/server.ts';
import { compileProjectAhead } from '../compose/projectCompilation.ts';
import { watchProject } from '../runtime/project/watch.ts';
import { settleImports, trackImports, wasImported } from '../runtime/project/importedFiles.ts';
import { startBanner } from './startBanner.ts';
import { onLateRefusal } from '../runtime/lateRefusal.ts';
import { IDLE_COLLECTION, startIdleCollector } from '../runtime/idle/idleCollector.ts';
import { growYoungGenerationAtOnce } from '../runtime/idle/youngGenerationGrowth.ts';
import { optimiseHotCodeSooner } from '../runtime/v8/earlyOptimisation.ts';
import { processTempDir } from '../shared/processTempDir.ts';
import { watchConformanceRunner } from './conformanceRunner.ts';
import { keepTickShape } from '../runtime/v8/tickShape.ts';

/** The options every serving command takes, each with the environment variable behind it. */
function servingOptions(command: Command): Command {
  return (
    command
      .addOption(new Option('--port <port>', 'HTTP port (both APIs on one port; 0 picks a free one)').env('PORT').default('8123'))
      .addOption(
        new Option(
          '--grpc-port <port>',
          'A2A gRPC port (0 picks a free one, off serves no gRPC; default 50051 or a free one when it is taken, 0 with --port 0)',
        ).env('AGENTPLANE_GRPC_PORT'),
      )
      .addOption(new Option('--host <address>', 'interface to bind (0.0.0.0 in a container)').env('HOST').default('127.0.0.1'))
      .addOption(
        new Option(
          '--data <dir>',
          `data directory (journal, snapshots, API keys); dev: ${DEV_DATA_DIR} in the project folder (data/ if one from an earlier dev is there)`,
        )
          .env('DATA_DIR')
          .default('./data'),
      )
      .addOption(new Option('--database <url>', 'PostgreSQL connection URL: keep records there instead of the embedded store').env('DATABASE_URL'))
      // boolean switches read their variable in loadConfig (1/true/yes/on), not commander's "any value"
      .addOption(new Option('--memory', 'keep everything in memory (nothing on disk) (env: AGENTPLANE_MEMORY=1)'))
      .addOption(
        new Option('--config <file>', 'project file (default: agentplane.json, else langgraph.json, in the working directory)').env('AGENTPLANE_CONFIG'),
      )
      .addOption(
        new Option(
          '--examples',
          'serve the shipped example graphs (echo, agent, approval, breakpoint, connected) instead of a project file (env: AGENTPLANE_EXAMPLES=1)',
        ),
      )
      .showHelpAfterError('(run with --help for the options)')
  );
}

/** Back to the flag form loadConfig reads, which the environment fills where a flag is missing. */
function toArgv(options: Record<string, unknown>, extra: string[] = []): string[] {
  const argv: string[] = [];
  for (const key of ['port', 'host', 'data', 'database', 'config'] as const)
    if (typeof options[key] === 'string') argv.push(`--${key}`, options[key] as string);
  if (typeof options.grpcPort === 'string') argv.push('--grpc-port', options.grpcPort);
  if (options.memory) argv.push('--memory');
  if (options.examples) argv.push('--examples');
  return [...argv, ...extra];
}

async function serve(mode: 'serve' | 'dev' | 'mock', argv: string[], reload: boolean, defaultData = false): Promise<void> {
  // before the graphs load and the run workers start: their hot code optimised sooner (runtime/v8/earlyOptimisation.ts)
  optimiseHotCodeSooner();
  let config = loadConfig(argv);
  // dev in a folder with no project file: a person at a terminal may have one scaffolded
  if (mode === 'dev' && !config.configFile && (await offerScaffold())) config = loadConfig(argv);
  const log = createLogger(config.logLevel, {}, await logSink());
  if (mode === 'dev' && defaultData && config.dataDir) {
    const dir = projectDir(config);
    const chosen = devDataDir(dir);
    config = { ...config, dataDir: chosen.dir };
    if (!chosen.earlier && ignoreDevDataDir(dir)) log.info(`added ${DEV_DATA_DIR}/ to .gitignore`, { file: path.join(dir, '.gitignore') });
    if (chosen.earlier)
      log.info(`using data/, made by an earlier agentplane dev, so its threads and keys stay; to move it: stop the server, rename it ${DEV_DATA_DIR}`, {
        dataDir: chosen.dir,
      });
  }
  if (mode === 'dev') config = withDevAuthDefaults(config);
  const watching = mode === 'dev' && reload && !config.mock;
  // the files the project loads decide what reloads, so recording starts before it loads
  if (watching) trackImports();
  // serve imports the project's TypeScript compiled by esbuild meanwhile, not through tsx's hooks (dev keeps them: its reload)
  if (mode === 'serve') compileProjectAhead(config, log);
  const starting = startServer(config, createApplication, log);
  let stopping = false;
  // a graph the start took as loading (its check remembered) that fails once loaded after the
  // first 200 stops the server as a start with it is refused: its message, exit 1 (compose/graphsAtStart.ts)
  onLateRefusal((err) => {
    if (stopping) return;
    stopping = true;
    const exit = () => {
      console.error(err.message);
      process.exit(1);
    };
    void starting.then((started) => started.close()).then(exit, exit);
  });
  const server = await starting;
  // what a busy spell left behind is given back once the server is idle, and what its caches
  // kept that nothing has used since (runtime/idle/idleCollector.ts)
  const collector = startIdleCollector(IDLE_COLLECTION, (unusedForMs) => server.releaseUnused(unusedForMs));
  // and the young generation V8 shrank meanwhile is its full size again at the next burst's first growth
  growYoungGenerationAtOnce();
  // from the moment the server listens a signal stops it cleanly: the gRPC port starts after
  // the HTTP port listens, and a SIGTERM while it starts must still flush the store (exit 0)
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    collector?.stop();
    log.info('shutting down', { signal });
    server.close().then(
      () => process.exit(0),
      (err) => {
        log.error('shutdown failed', { err });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const grpc = await server.grpc;
  if (stopping) return;
  if ('failed' in grpc && grpc.named) {
    // a port the operator named and cannot have stops the start, as the HTTP port does
    await server.close();
    throw new Error(grpc.failed);
  }
  tell(startBanner(config, server.url, mode, server.tokenKey, 'port' in grpc ? grpc.port : null));
  if (watching) await watchForReload(config, server, log);
  if (server.createdKey) {
    // printed once, on the start that created it; it is kept in the data directory
    tell(
      `\n  API key (created on first start): ${server.createdKey.key}\n  tenant: ${server.createdKey.tenants[0]}\n  try: curl -H 'X-Api-Key: ${server.createdKey.key}' ${server.url}/v2/deployments\n`,
    );
  }
}

/**
 * What serve, dev and mock say to a person (the start banner, a created key): on stdout at a
 * terminal; off one on stderr, so that stdout stays one JSON object per line for a log shipper
 * while whoever started the server still sees where the API, dashboard and docs are.
 */
function tell(text: string): void {
  (process.stdout.isTTY ? process.stdout : process.stderr).write(`${text}\n`);
}

/**
 * agentplane dev: a change to a file the project loaded (or to its project or env file) reloads
 * its graphs; the server keeps running. Files a reload loads count from then on.
 */
async function watchForReload(config: ServerConfig, server: RunningServer, log: Logger): Promise<void> {
  const dir = config.configFile ? path.dirname(config.configFile) : process.cwd();
  watchProject(
    dir,
    (files) => {
      log.info('project changed, reloading', { files: files.map((f) => path.relative(dir, f)) });
      server.reload().catch((err: Error) => log.error('reload failed; the previous graphs keep serving', { error: err.message }));
    },
    { ignore: config.dataDir ? [config.dataDir] : [], projectFiles: projectFiles(config, dir), imported: wasImported },
  );
  await settleImports();
  log.info('watching the project for changes', { dir });
}

/** The folder of the project dev serves: its project file's, else (none, or the shipped examples) the working directory. */
function projectDir(config: ServerConfig): string {
  return config.configFile && config.configFile !== EXAMPLES_PROJECT_FILE ? path.dirname(config.configFile) : process.cwd();
}

/** The project file and the dotenv file it names: changes to them reload whatever their names. */
function projectFiles(config: ServerConfig, dir: string): string[] {
  const files = config.configFile ? [config.configFile] : [];
  if (typeof config.project.env === 'string') files.push(path.resolve(dir, config.project.env));
  return files;
}

export function buildCli(): Command {
  const program = new Command('agentplane')
    .description('Contract-first deployment control plane and LangGraph agent server (with A2A), real or mock.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      `
Environment (besides each option's own): LOG_LEVEL (debug|info|warn|error|silent), LOG_FORMAT (json|pretty),
AGENTPLANE_ACCESS_LOG=0, AGENTPLANE_API_KEYS, AGENTPLANE_API_KEYS_FILE, AGENTPLANE_AGENT_SERVER_AUTH,
AGENTPLANE_PUBLIC_URL, AGENTPLANE_TRUST_PROXY, AGENTPLANE_MAX_CONCURRENT_RUNS, AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT,
AGENTPLANE_RUN_WORKERS, AGENTPLANE_RUN_TIMEOUT_S, AGENTPLANE_RUN_WORKER_MEMORY_MB, AGENTPLANE_DATABASE_POOL, AGENTPLANE_RUN_LEASE_S,
AGENTPLANE_MAX_BODY_BYTES, AGENTPLANE_MAX_STREAMS_PER_CLIENT, AGENTPLANE_MAX_STREAMS, AGENTPLANE_FSYNC, AGENTPLANE_STORE_CACHE_MB,
AGENTPLANE_SCHEMA_WARMUP=0, AGENTPLANE_RUN_WORKER_WARMUP=0, AGENTPLANE_LISTENER_TIMEOUT_S, AGENTPLANE_ROLE (server|queue).
Exit codes: 0 done, 1 the server could not start (the message says why), 2 usage error.
Docs: README.md, docs/operations.md (the data directory; agentplane store check/repair); a running server serves its API reference at /docs.`,
    );

  servingOptions(program.command('serve', { isDefault: true }).description('serve both APIs (the default command)'))
    .addOption(new Option('--mock', 'answer every operation from the spec instead of real behaviour (env: AGENTPLANE_MOCK=1)'))
    .allowExcessArguments(false)
    .action((options: Record<string, unknown>) => serve('serve', toArgv(options, options.mock ? ['--mock'] : []), false));

  servingOptions(
    program
      .command('dev')
      .description('serve the project in the working directory and reload its graphs when files change (in a folder without one, offers to scaffold one)'),
  )
    .option('--no-reload', 'do not watch the project')
    .allowExcessArguments(false)
    .action((options: Record<string, unknown>, command: Command) =>
      serve('dev', toArgv(options), options.reload !== false, command.getOptionValueSource('data') === 'default'),
    );

  program
    .command('init')
    .description(
      'scaffold a minimal LangGraph.js project (langgraph.json, one graph and a package.json listing what it imports) in a folder, as `langgraph new` does',
    )
    .argument('[dir]', 'the project folder (created when missing)', '.')
    .allowExcessArguments(false)
    .action(async (dir: string) => {
      process.exitCode = (await init(path.resolve(dir))) ? 0 : 1;
    });

  servingOptions(program.command('mock').description('serve both APIs in mock mode (answers from the spec, nothing stored)'))
    .allowExcessArguments(false)
    .action((options: Record<string, unknown>) => serve('mock', toArgv(options, ['--mock']), false));

  program
    .command('conformance')
    .description('run the conformance suite (fuzzed requests, credential probes, JSON-RPC, the spec links walk) against a running server')
    .requiredOption('--url <url>', 'base URL of the server under test')
    .addOption(new Option('--api-key <key>', 'API key sent as X-Api-Key').env('AGENTPLANE_API_KEY'))
    .addOption(new Option('--runs <n>', 'fuzzed cases per property').default('40'))
    .option('--seed <n>', 'fast-check seed (replays a run; failures print theirs)')
    .option('--junit <file>', 'also write a JUnit XML report to this file')
    .addOption(
      new Option('--mode <mode>', 'real: answers must also agree with each other (what was created is readable…); mock: each answer only has to match the spec')
        .choices(['real', 'mock'])
        .default('real'),
    )
    .addOption(new Option('--documents <list>', 'which documents to check, comma-separated').default('control-plane,agent-server,a2a'))
    .allowExcessArguments(false)
    .action((options: ConformanceOptions) => runConformance(options));

  program
    .command('listener')
    .description(
      'reconcile, with a deployer on this machine, the deployments a control plane assigns to this listener (source_config.listener_id), reporting their status and logs back',
    )
    .requiredOption('--control-plane <url>', 'base URL of the control plane')
    .addOption(
      new Option(
        '--api-key <key>',
        'an API key of the tenant whose deployments this listener reconciles: registers the listener, or issues it a new token',
      ).env('AGENTPLANE_API_KEY'),
    )
    .addOption(
      new Option(
        '--listener-token <token>',
        "the listener's own token (with --listener-id): all it needs once registered; kept in its data directory otherwise",
      ).env('AGENTPLANE_LISTENER_TOKEN'),
    )
    .addOption(new Option('--tenant-id <uuid>', 'the tenant, for a key that spans several').env('AGENTPLANE_TENANT_ID'))
    .addOption(
      new Option('--deployer <name>', 'what deploys the revisions here')
        .choices(['local', 'container', 'kubernetes', 'kube-local', 'simulated'])
        .default('local'),
    )
    .option('--listener-id <uuid>', 'use this registered listener (default: the one this data directory registered, else a new one)')
    .option('--compute-id <name>', 'the unique name of this compute in the tenant (default: host name and data directory)')
    .option('--namespace <name...>', 'Kubernetes namespaces deployed into (compute_config.k8s_namespaces)')
    .addOption(new Option('--data <dir>', "the listener's own store and its deployments' files").default('./listener-data'))
    .addOption(new Option('--interval-ms <ms>', 'how often it heartbeats, pulls and reports').env('AGENTPLANE_LISTENER_INTERVAL_MS').default('2000'))
    .allowExcessArguments(false)
    .action((options: ListenerCommandOptions) => listen(options));

  program
    .command('render')
    .description(
      'print the Kubernetes manifests of an image and a resource_spec (as the kubernetes deployer applies them), checked against the Kubernetes schemas, for kubectl apply -f -',
    )
    .requiredOption('--image <uri>', 'the agent server image (image_uri)')
    .option('--resource-spec <file>', 'a JSON file holding the resource_spec')
    .option('--namespace <name>', 'namespace of every object', 'default')
    .option('--id <name>', 'what object names are made of (agentplane-<id>…): the deployment id in the control plane', 'local')
    .option(
      '--secret <NAME=VALUE>',
      'a secret, as an environment variable of the server (repeatable)',
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .option('--postgres-image <image>', 'image of the database StatefulSet, when one is needed', 'postgres:16')
    .option(
      '--key-digest <sha256>',
      'the SHA-256 (hex) of a key the server answers (repeatable); none: a key is made and shown once on stderr',
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .option('--tenant <uuid>', 'the tenant those keys act for on the server (default: one named after --id)')
    .allowExcessArguments(false)
    .action(async (options: import('./renderCommand.ts').RenderOptions) => {
      const { renderCommand } = await import('./renderCommand.ts');
      process.exitCode = renderCommand(options);
    });

  program
    .command('build')
    .description('build a container image of the project (like `langgraph build`): agentplane serving it on port 8000, with podman or docker, offline')
    .requiredOption('-t, --tag <tag>', 'the image tag')
    .option('-c, --config <file>', `project file (default: ${PROJECT_FILE_NAMES.join(', else ')} in the working directory)`)
    .option('--push', 'push the image to the registry its tag names')
    .addOption(new Option('--engine <engine>', 'container engine (default: podman, else docker, whichever is on PATH)').choices(['podman', 'docker']))
    .allowExcessArguments(false)
    .action(async (options: BuildOptions) => {
      const { buildCommand } = await import('./buildCommand.ts');
      process.exitCode = await buildCommand(options);
    });

  const store = program.command('store').description('check or repair an embedded store data directory (the server refuses to start on a damaged one)');
  store
    .command('check')
    .description('read the data directory as the server would and report every problem (exit 1 when there is one); changes nothing')
    .argument('<dir>', 'data directory (--data / DATA_DIR of the server)')
    .allowExcessArguments(false)
    .action(async (dir: string) => {
      const { checkStore } = await import('../adapters/embedded/storeTool.ts');
      process.exitCode = checkStore(path.resolve(dir));
    });
  store
    .command('repair')
    .description('keep every readable record, move damaged files aside (<file>.corrupt-<time>) and say what was dropped; run with the server stopped')
    .argument('<dir>', 'data directory (--data / DATA_DIR of the server)')
    .allowExcessArguments(false)
    .action(async (dir: string) => {
      const { repairStore } = await import('../adapters/embedded/storeTool.ts');
      process.exitCode = repairStore(path.resolve(dir));
    });

  return program;
}

interface ListenerCommandOptions {
  controlPlane: string;
  apiKey?: string;
  listenerToken?: string;
  tenantId?: string;
  deployer: string;
  listenerId?: string;
  computeId?: string;
  namespace?: string[];
  data: string;
  intervalMs: string;
}

/** agentplane listener: runs until SIGINT/SIGTERM, which stop its deployer (and the deployments with it) cleanly. */
async function listen(options: ListenerCommandOptions): Promise<void> {
  const usage = (message: string) => {
    console.error(`error: ${message}`);
    process.exit(2);
  };
  const registered = options.listenerToken !== undefined || fs.existsSync(path.join(path.resolve(options.data), 'listener.json'));
  if (!options.apiKey && !registered)
    return usage('the listener needs an API key to register: --api-key or AGENTPLANE_API_KEY (or, registered already, --listener-id and --listener-token)');
  const intervalMs = /^\d+$/.test(options.intervalMs) ? Number(options.intervalMs) : NaN;
  if (!(intervalMs >= 10))
    return usage(`--interval-ms / AGENTPLANE_LISTENER_INTERVAL_MS must be a whole number of milliseconds, at least 10, got "${options.intervalMs}"`);
  const { runListener } = await import('../compose/listener.ts');
  const dataDir = path.resolve(options.data);
  // the deployer is configured from the same settings as the server's (AGENTPLANE_DEPLOYER_ISOLATION, …)
  const config = loadConfig(['--data', dataDir], { ...process.env, AGENTPLANE_DEPLOYER: options.deployer });
  const log = createLogger(config.logLevel, { role: 'listener' }, await logSink());
  const listener = await runListener(
    {
      controlPlane: options.controlPlane,
      apiKey: options.apiKey,
      listenerToken: options.listenerToken,
      tenantId: options.tenantId,
      listenerId: options.listenerId,
      computeId: options.computeId,
      namespaces: options.namespace ?? [],
      deployer: options.deployer,
      intervalMs,
    },
    config,
    log,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('listener shutting down', { signal, listener_id: listener.listenerId });
    listener.stop().then(
      () => process.exit(0),
      (err) => {
        log.error('listener shutdown failed', { err });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** agentplane init: writes the scaffold and says what to do next; false (nothing written) when the folder has a project. */
async function init(dir: string, sayNext = true): Promise<boolean> {
  fs.mkdirSync(dir, { recursive: true });
  const { scaffoldProject } = await import('./scaffold.ts');
  const result = scaffoldProject(dir);
  if (!result.ok) {
    console.error(`error: ${dir} already has ${result.existing.join(', ')}; nothing was written (init scaffolds a new project only)`);
    return false;
  }
  const where = path.relative(process.cwd(), dir);
  console.log(`Created in ${dir}: ${result.created.join(', ')}`);
  const { packageJson, missingPackages } = result;
  if (packageJson.action === 'merged') console.log(`Added to package.json's dependencies: ${packageJson.added.join(', ')}`);
  if (packageJson.action === 'unreadable') console.log(`package.json is not a JSON object and was left as it is`);
  const missing = missingPackages.join(' and ');
  // once package.json lists them, a plain install fetches them; a file it could not read needs them named
  if (missingPackages.length)
    console.log(`The graph imports ${missing}: ${packageJson.action === 'unreadable' ? `npm install ${missingPackages.join(' ')}` : 'npm install'}`);
  if (sayNext)
    console.log(`Next: ${where ? `cd ${where} && ` : ''}${PACKAGE_COMMAND} dev   (serves the graph "agent" and reloads it when you edit src/agent.ts)`);
  return true;
}

/**
 * agentplane dev in a folder without a project file: asks whether to scaffold one; true when
 * it did. Only a person at a terminal is asked; otherwise (a script, CI) nothing waits for an
 * answer and the start banner says how to run init.
 */
async function offerScaffold(): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return false;
  const { createInterface } = await import('node:readline/promises');
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await prompt.question(
    `No project file (${PROJECT_FILE_NAMES.join(' or ')}) in ${process.cwd()}.\nScaffold a minimal project here (langgraph.json, src/agent.ts, its dependencies in package.json)? [Y/n] `,
  );
  prompt.close();
  // on no, dev serves without graphs, as before
  return /^(y|yes)?$/i.test(answer.trim()) && (await init(process.cwd(), false));
}

interface ConformanceOptions {
  url: string;
  apiKey?: string;
  runs: string;
  seed?: string;
  junit?: string;
  mode: string;
  documents: string;
}

/**
 * agentplane conformance: node's test runner over the suite (test/conformance/remote.suite),
 * compiled in the package, through tsx in a clone. Exits with the runner's code: non-zero
 * when any property failed (each failure prints a shrunk curl reproduction).
 */
async function runConformance(options: ConformanceOptions): Promise<void> {
  const documents = options.documents.split(',').map((d) => d.trim());
  const unknown = documents.filter((d) => !['control-plane', 'agent-server', 'a2a'].includes(d));
  if (unknown.length || !/^\d+$/.test(options.runs) || (options.seed !== undefined && !/^-?\d+$/.test(options.seed))) {
    console.error(
      `error: ${unknown.length ? `unknown document(s) ${unknown.join(', ')} (control-plane, agent-server, a2a)` : '--runs and --seed take integers'}`,
    );
    process.exit(2);
  }
  const { conformanceSuite } = await import('./conformanceSuite.ts');
  const suite = await conformanceSuite(packagePath());
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout'];
  if (options.junit) reporters.push('--test-reporter=junit', `--test-reporter-destination=${path.resolve(options.junit)}`);
  const args = [...(suite.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : []), '--test', '--test-concurrency=1', ...reporters, suite];
  // started from inside another node:test run (a CI script's test), node would otherwise
  // report to the outer runner and skip running the suite's file
  const { NODE_TEST_CONTEXT: _outerRunner, ...inherited } = process.env;
  // where the suite's process writes its pid: an interruption is passed to it alone
  const pidFile = path.join(processTempDir('agentplane-conformance-'), 'suite.pid');
  const child = spawn(process.execPath, args, {
    stdio: 'inherit',
    // a process group of its own: a Ctrl-C at the terminal reaches this command only (below)
    detached: true,
    env: {
      ...inherited,
      CONFORMANCE_PID_FILE: pidFile,
      CONFORMANCE_URL: options.url,
      CONFORMANCE_API_KEY: options.apiKey ?? '',
      CONFORMANCE_MODE: options.mode,
      CONFORMANCE_DOCUMENTS: documents.join(','),
      FUZZ_RUNS: options.runs,
      ...(options.seed === undefined ? {} : { FUZZ_SEED: options.seed }),
    },
  });
  // Ctrl-C or SIGTERM goes to the suite's process alone; a runner left spinning once the suite has ended is stopped (conformanceRunner.ts)
  const runner = watchConformanceRunner(child, { pidFile });
  process.on('SIGINT', () => runner.interrupt('SIGINT'));
  process.on('SIGTERM', () => runner.interrupt('SIGTERM'));
  const { code, note } = await runner.ended;
  fs.rmSync(path.dirname(pidFile), { recursive: true, force: true });
  if (note) console.error(note);
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  // before the start's first full collection: nextTick's tick objects built inline for the life
  // of the process, not by V8's runtime (runtime/v8/tickShape.ts)
  keepTickShape();
  const program = buildCli();
  const first = argv[0];
  const names = program.commands.map((c) => c.name());
  if (first !== undefined && !first.startsWith('-') && !names.includes(first)) {
    // without this the default command would take the typo as a stray argument
    const near = names.find((name) => [...name].filter((ch, i) => first[i] === ch).length >= name.length - 2);
    console.error(`error: unknown command '${first}'${near ? ` (did you mean ${near}?)` : ''}\nCommands: ${names.join(', ')}; run agentplane --help`);
    process.exit(2);
  }
  program.exitOverride();
  for (const command of program.commands) {
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with code 0; usage errors were already printed
      process.exit(err.exitCode === 0 ? 0 : 2);
    }
    throw err;
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
