// Generative UI (langgraph.json `ui`): each agent's UI module bundled with esbuild into the
// files a page loads, the way the upstream JS server bundles it, so clients written for it
// (`LoadExternalComponent` of `@langchain/langgraph-sdk/react-ui`) load them unchanged:
// one browser script that defines the global `__LGUI_<agent>` with `render(name,
// shadowRootId)`, plus the CSS the module imports. Bundles are kept in memory, built at start
// and again on reload; a module that does not build is logged and its agent answers 404.
import path from 'node:path';
import type { Plugin } from 'esbuild';
import { withEsbuild } from '../../shared/esbuildService.ts';
import type { Logger } from '../../domain/ports/logger.ts';
import { fail, ok, type Outcome } from '../../domain/outcome.ts';
import { uiGlobalName, type UiBundleFiles, type UiFile, type UiSettings } from '../../domain/ports/uiBundles.ts';
import { tailwindPlugin } from './tailwind.ts';
import { projectConfinementPlugin } from './projectConfinement.ts';

/** Provided by the page that loads a bundle (the SDK's loader hands them to the bundle), never bundled. */
const PROVIDED_BY_PAGE = ['react', 'react-dom', '@langchain/langgraph-sdk', '@langchain/langgraph-sdk/react-ui'];
const ENTRY = 'agentplane:ui-entry';
// The SDK's loader offers the page's modules under this symbol; the bundle asks it for what
// it left out instead of a `require` a browser does not have.
const BROWSER_REQUIRE = 'typeof require !== "undefined" ? require';
const PAGE_REQUIRE = 'typeof globalThis[Symbol.for("LGUI_REQUIRE")] !== "undefined" ? globalThis[Symbol.for("LGUI_REQUIRE")]';

export type { UiFile, UiSettings };

export class UiBundles implements UiBundleFiles {
  private bundles = new Map<string, UiFile[]>();
  /** The first build, started with the server but not awaited by it (see `start`). */
  private firstBuild: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: Logger,
    /** Told the files each bundle was built from, so `agentplane dev` reloads when one changes. */
    private readonly noteInputs: (files: string[]) => void = () => undefined,
  ) {}

  /**
   * Starts the first build without holding up the server's start (esbuild and Tailwind cost
   * hundreds of milliseconds there); a request for a bundle waits for it.
   */
  start(settings: UiSettings): void {
    this.firstBuild = this.rebuild(settings);
  }

  /** Builds every agent's bundle; the previous bundles answer until all are built. Never rejects. */
  async rebuild(settings: UiSettings): Promise<void> {
    const next = new Map<string, UiFile[]>();
    await Promise.all(
      Object.entries(settings.modules).map(async ([agent, modulePath]) => {
        try {
          next.set(agent, await bundle(agent, modulePath, settings, this.noteInputs));
        } catch (err) {
          this.log.error('generative UI: the module did not build; its agent answers 404', { agent, module: modulePath, error: (err as Error).message });
        }
      }),
    );
    this.bundles = next;
    if (next.size) this.log.info('generative UI bundled', { agents: [...next.keys()] });
  }

  async files(agent: string): Promise<Outcome<readonly UiFile[], 'not_found'>> {
    await this.firstBuild;
    const files = this.bundles.get(agent);
    return files?.length ? ok(files) : fail('not_found', `UI not found for agent "${agent}"`);
  }

  async file(agent: string, name: string): Promise<Outcome<UiFile, 'not_found'>> {
    await this.firstBuild;
    const file = this.bundles.get(agent)?.find((f) => f.name === name);
    return file ? ok(file) : fail('not_found', 'File not found');
  }
}

async function bundle(agent: string, modulePath: string, settings: UiSettings, noteInputs: (files: string[]) => void): Promise<UiFile[]> {
  const full = path.resolve(settings.projectDir, modulePath);
  const relative = path.relative(settings.projectDir, full).split(path.sep).join('/');
  if (relative.startsWith('../') || path.isAbsolute(relative)) throw new Error(`the UI module must be inside the project folder, not ${modulePath}`);
  // esbuild loaded on the first build: a server without generative UI never starts its service
  const result = await withEsbuild(({ build }) =>
    build({
      entryPoints: [{ in: ENTRY, out: 'entrypoint' }],
      outdir: path.join(settings.projectDir, 'dist'), // names the outputs only: nothing is written
      write: false,
      bundle: true,
      platform: 'browser',
      target: 'es2020',
      jsx: 'automatic',
      format: 'iife',
      globalName: uiGlobalName(agent),
      external: [...PROVIDED_BY_PAGE, ...settings.shared],
      // the confinement first: it must see every file before another plugin loads it
      plugins: [projectConfinementPlugin(settings.projectDir), entryPlugin(`./${relative}`, settings.projectDir), tailwindPlugin(settings.projectDir)],
      logLevel: 'silent',
      metafile: true,
    }),
  );
  // agentplane dev reloads on a change to what the bundle was built from
  noteInputs(
    Object.keys(result.metafile.inputs)
      .filter((input) => !/^[\w-]+:/.test(input))
      .map((input) => path.resolve(input)),
  );
  return result.outputFiles.map((out) => {
    const name = path.basename(out.path);
    const contents = name.endsWith('.js') ? new TextEncoder().encode(out.text.replaceAll(BROWSER_REQUIRE, PAGE_REQUIRE)) : out.contents;
    return { name, contents };
  });
}

/** The bundle's entry: the project's components behind `render`, which mounts one into a shadow root. */
function entryPlugin(moduleSpecifier: string, projectDir: string): Plugin {
  const contents = [
    `import components from ${JSON.stringify(moduleSpecifier)};`,
    // the SDK's loader registered itself under this symbol and waits for the component
    `export function render(name, shadowRootId) {`,
    `  const mount = document.createElement("div");`,
    `  document.getElementById(shadowRootId).shadowRoot.appendChild(mount);`,
    `  window[Symbol.for("LGUI_EXT_STORE")].respond(shadowRootId, components[name], mount);`,
    `}`,
  ].join('\n');
  return {
    name: 'agentplane-ui-entry',
    setup(b) {
      b.onResolve({ filter: /^agentplane:ui-entry$/ }, () => ({ path: ENTRY, namespace: 'agentplane-ui' }));
      b.onLoad({ filter: /.*/, namespace: 'agentplane-ui' }, () => ({ contents, resolveDir: projectDir, loader: 'tsx' }));
    },
  };
}
