// A LangGraph.js project as an image, as upstream's `langgraph build` makes one, in three
// layers that each build once: the base (Node.js from this machine, baseImage.ts), the
// server (this agentplane and its run-time dependencies at /opt/agentplane, serving on
// 0.0.0.0:8000 as upstream's images do), and the project (copied to /deps/<name> with the
// node_modules it has, less .git, its dotenv files and what its .dockerignore names
// (buildContext.ts); its install and build commands run inside the build, never on the host).
// `agentplane-server build`, the container deployer and the repository's Dockerfile
// all make images this way.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { detectInstallCommand } from './installCommand.ts';
import { baseImageTag, ensureBaseImage, IMAGE_USER } from './baseImage.ts';
import { EngineError, type ContainerEngine, type RunOptions } from './engine.ts';
import { stageProjectContext } from './buildContext.ts';
import { serverFiles, stageServerFiles, type ServerFiles } from './serverFiles.ts';
import { buildOnce } from './buildOnce.ts';
import { ensureToolchainImage } from './toolchainImage.ts';

/** The port agentplane listens on in its images (upstream's images use 8000 too). */
export const IMAGE_PORT = 8000;
/** Where the agent server keeps its data in a container: a volume is mounted there. */
export const IMAGE_DATA_DIR = '/data';
const SERVER_HOME = '/opt/agentplane';
const PROJECTS_DIR = '/deps';

export interface BuildImageRequest {
  tag: string;
  /** The folder copied into the image (less .git, dotenv files and its .dockerignore): the repository root, or the project file's folder. */
  projectDir: string;
  /** The project file (langgraph.json or agentplane.json), relative to projectDir. */
  configPath: string;
  /** Run at the project root; null: the lockfile decides, skipped when the project brings its node_modules. */
  installCommand?: string | null;
  /** Run in the project file's folder after the install. */
  buildCommand?: string | null;
  /** The agentplane installation the image serves with. */
  packageRoot: string;
  /** Labels of the image and of every layer the build caches (so that a failed build's layers can be found and removed). */
  labels?: Record<string, string>;
}

/** Shell-quotes one word for a RUN line. */
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The agentplane server image for this installation (base + package), built once per version
 * of its files and of the base it starts from: a base rebuilt (this machine's Node.js
 * upgraded, its libraries changed, a new layout) is a new server image, never an old one on
 * the old base.
 */
export async function ensureServerImage(
  engine: ContainerEngine,
  packageRoot: string,
  options: RunOptions = {},
  nodeBinary = process.execPath,
): Promise<string> {
  const files = serverFiles(packageRoot);
  if (!fs.existsSync(path.join(files.packageRoot, 'dist', 'src', 'cli', 'main.js'))) {
    throw new Error(`${files.packageRoot} has no dist/ (the compiled server): run "npm run build" there first`);
  }
  const digest = createHash('sha256')
    .update(`${baseImageTag(nodeBinary)}\n${files.digest}`)
    .digest('hex')
    .slice(0, 12);
  const tag = `localhost/agentplane-server:${digest}`;
  return buildOnce(engine, tag, async () => {
    if (await engine.hasImage(tag)) return tag;
    const base = await ensureBaseImage(engine, options, nodeBinary);
    return buildServerImage(engine, files, base, tag, options);
  });
}

async function buildServerImage(engine: ContainerEngine, files: ServerFiles, base: string, tag: string, options: RunOptions): Promise<string> {
  return withContext('agentplane-server-', async (context) => {
    const staged = { package: path.join(context, 'agentplane'), dependencies: path.join(context, 'dependencies') };
    const { packageDir } = stageServerFiles(files, staged);
    const bin = path.posix.join(SERVER_HOME, path.relative(staged.package, packageDir).split(path.sep).join('/'), 'bin', 'agentplane.js');
    fs.writeFileSync(
      path.join(context, 'Containerfile'),
      [
        `FROM ${base}`,
        // the run-time dependencies (~300 MB) first: a build with the same dependencies as one
        // before (a new build of agentplane's own files) reuses that copy from the engine's cache
        `COPY dependencies/ ${SERVER_HOME}/`,
        `COPY agentplane/ ${SERVER_HOME}/`,
        `ENV NODE_ENV=production HOST=0.0.0.0 PORT=${IMAGE_PORT} DATA_DIR=${IMAGE_DATA_DIR}`,
        `WORKDIR ${IMAGE_DATA_DIR}`,
        `USER ${IMAGE_USER.name}`,
        `EXPOSE ${IMAGE_PORT}`,
        `ENTRYPOINT ["/usr/local/bin/node", ${JSON.stringify(bin)}]`,
        'CMD ["serve"]',
        '',
      ].join('\n'),
    );
    options.onLine?.(`Building the agentplane server image ${tag}`);
    await engine.build(['--network', 'none', '-t', tag, '-f', path.join(context, 'Containerfile'), context], options);
    return tag;
  });
}

/** The install command the lockfile implies; null: nothing to install. */
export function impliedInstallCommand(projectDir: string): string | null {
  // what the project brings is what it runs with: offline builds need nothing more
  if (fs.existsSync(path.join(projectDir, 'node_modules'))) return null;
  return detectInstallCommand(projectDir);
}

/** Builds the project's image and tags it; resolves with the tag. */
export async function buildImage(engine: ContainerEngine, request: BuildImageRequest, options: RunOptions = {}): Promise<string> {
  const configFile = path.resolve(request.projectDir, request.configPath);
  if (!fs.existsSync(configFile)) throw new Error(`the project file ${request.configPath} is not in ${request.projectDir}`);
  const server = await ensureServerImage(engine, request.packageRoot, options);
  const name = path.basename(path.resolve(request.projectDir)).replace(/[^A-Za-z0-9._-]/g, '-') || 'project';
  const home = path.posix.join(PROJECTS_DIR, name);
  const configInImage = path.posix.join(home, path.relative(request.projectDir, configFile).split(path.sep).join('/'));
  return withContext('agentplane-project-', async (context) => {
    const staged = stageProjectContext(request.projectDir, request.configPath, path.join(context, 'project'));
    if (staged.leftOut.length) options.onLine?.(`Left out of the image (.git, dotenv files, .dockerignore): ${staged.leftOut.join(', ')}`);
    if (staged.emptiedEnvFile)
      options.onLine?.(
        `${staged.emptiedEnvFile} (the project's env) stands empty in the image: pass its variables where the image runs (-e, the deployment's secrets)`,
      );
    // what reaches the image decides: a node_modules the .dockerignore leaves out is installed there
    const install = request.installCommand ?? impliedInstallCommand(path.join(context, 'project'));
    const configDir = path.posix.dirname(configInImage);
    // the install and build run in a build stage with a compiler (a dependency may compile a
    // native addon: node-gyp), the image is the slim server layer with what they left in the
    // project's folder; without a toolchain on this machine they run in the server layer
    const toolchain = install || request.buildCommand ? await ensureToolchainImage(engine, options) : null;
    const lines = toolchain ? [`FROM ${toolchain} AS build`] : [`FROM ${server}`, 'USER root'];
    lines.push(`COPY project/ ${home}/`, `WORKDIR ${home}`);
    // the server layer sets NODE_ENV=production, for the server: a project's install and build
    // run without it, as on a developer's machine (npm then installs the devDependencies its
    // build needs: tsc, a bundler), and set it themselves where their build expects it
    if (install) lines.push(`RUN ${asProjectStep(install)}`);
    if (configDir !== home) lines.push(`WORKDIR ${configDir}`);
    if (request.buildCommand) lines.push(`RUN ${asProjectStep(request.buildCommand)}`);
    if (toolchain) lines.push(`FROM ${server}`, 'USER root', `COPY --from=build ${home}/ ${home}/`, `WORKDIR ${configDir}`);
    lines.push(
      // an image of a project is its agent server: no control plane inside
      `ENV AGENTPLANE_CONTROL_PLANE=off AGENTPLANE_CONFIG=${configInImage}`,
      `LABEL agentplane.project=${quote(name)}`,
      `USER ${IMAGE_USER.name}`,
      '',
    );
    fs.writeFileSync(path.join(context, 'Containerfile'), lines.join('\n'));
    options.onLine?.(
      `Building ${request.tag} from ${request.projectDir}${install ? ` (install: ${install})` : ''}${request.buildCommand ? ` (build: ${request.buildCommand})` : ''}`,
    );
    const labels = Object.entries(request.labels ?? {}).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
    const steps = { [asProjectStep(install ?? '')]: "the project's install", [asProjectStep(request.buildCommand ?? '')]: "the project's build" };
    await withFailedStepNamed(steps, options, (watched) =>
      engine.build([...labels, '-t', request.tag, '-f', path.join(context, 'Containerfile'), context], watched),
    );
    return request.tag;
  });
}

/** A project's install or build command as its RUN step runs it: without the server's NODE_ENV. */
const asProjectStep = (command: string) => `unset NODE_ENV; ${command}`;

/** How the engine names the step it starts (podman: `STEP 5/9: RUN …`, `[1/2] STEP 4/4: RUN …` in a stage; docker: `#7 [3/6] RUN …`, `#7 [build 3/6] RUN …`). */
const STEP_LINE = /^(?:(?:\[\d+\/\d+\] )?STEP \d+\/\d+: |#\d+ \[(?:[^\]]*\s)?\d+\/\d+\] )(.*)$/;
/** How many lines of a failed step's output the error keeps. */
const STEP_OUTPUT_LINES = 40;

/**
 * Runs an image build; its failure says which step failed (what it was: the project's install,
 * its build) and holds that step's output, not only the engine's last lines.
 */
async function withFailedStepNamed<T>(known: Record<string, string>, options: RunOptions, build: (options: RunOptions) => Promise<T>): Promise<T> {
  let step: string | undefined;
  let output: string[] = [];
  const onLine = (line: string) => {
    options.onLine?.(line);
    const started = STEP_LINE.exec(line);
    if (started) {
      step = started[1]!.trim();
      output = [];
    } else if (output.push(line) > STEP_OUTPUT_LINES) output.shift();
  };
  try {
    return await build({ ...options, onLine });
  } catch (err) {
    if (!(err instanceof EngineError) || !step) throw err;
    const command = step.replace(/^RUN /, '');
    const what = known[command] ? ` (${known[command]})` : '';
    throw new EngineError(
      `The image build failed at step "${step.replace('unset NODE_ENV; ', '')}"${what}: ${err.message.split('\n')[0]} Its output:`,
      output.join('\n'),
      err.exitCode,
    );
  }
}

/** Pushes a tag to the registry it names. */
export async function pushImage(engine: ContainerEngine, tag: string, options: RunOptions = {}): Promise<void> {
  await engine.run(['push', tag], options);
}

async function withContext<T>(prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    return await work(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
