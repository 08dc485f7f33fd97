// agentplane build: a LangGraph.js project as a container image (like upstream's
// `langgraph build -t TAG -c langgraph.json`), made by images/buildImage.ts with podman or
// docker, optionally pushed. Output of the engine goes to the terminal as it comes.
import path from 'node:path';
import { buildImage, pushImage } from '../adapters/images/buildImage.ts';
import { ContainerEngine, findEngine, type EngineName } from '../adapters/images/engine.ts';
import { packagePath, PACKAGE_ROOT } from '../runtime/packageRoot.ts';
import { discoverProjectFile, PROJECT_FILE_NAMES } from '../runtime/project/project.ts';

export interface BuildOptions {
  tag: string;
  config?: string;
  push?: boolean;
  engine?: string;
}

/** Builds (and pushes) the image; the exit code. */
export async function buildCommand(options: BuildOptions): Promise<number> {
  const engineName = (options.engine ?? findEngine(process.env)) as EngineName | null;
  if (!engineName) {
    console.error('error: agentplane build needs podman or docker on PATH (or --engine)');
    return 1;
  }
  const configFile = discoverProjectFile(options.config, process.cwd());
  if (!configFile) {
    console.error(`error: no project file (${PROJECT_FILE_NAMES.join(' or ')}) in ${process.cwd()}; name one with -c`);
    return 1;
  }
  const engine = new ContainerEngine({ name: engineName, env: process.env, containersConf: packagePath('config', 'containers.conf') });
  const print = { onLine: (line: string) => console.log(line) };
  const tag = await buildImage(
    engine,
    { tag: options.tag, projectDir: path.dirname(configFile), configPath: path.basename(configFile), packageRoot: PACKAGE_ROOT },
    print,
  );
  console.log(`Built ${tag}: ${engineName} run -p 8123:8000 ${tag}`);
  if (options.push) {
    await pushImage(engine, tag, print);
    console.log(`Pushed ${tag}`);
  }
  return 0;
}
