// Generative UI: each agent's UI module bundled into the files a page loads. Bundling takes
// esbuild, so it is an adapter's (adapters/ui-bundling/uiBundles.ts); the handlers read the
// bundles through this port.
import type { Outcome } from '../outcome.ts';

export interface UiFile {
  name: string;
  contents: Uint8Array;
}

export interface UiSettings {
  /** Agent name → module path, relative to the project folder. */
  modules: Record<string, string>;
  /** More packages the page provides, beside those always left out. */
  shared: string[];
  projectDir: string;
}

export interface UiBundleFiles {
  /** The agent's bundle: its script and stylesheets. */
  files(agent: string): Promise<Outcome<readonly UiFile[], 'not_found'>>;
  /** One file of the agent's bundle. */
  file(agent: string, name: string): Promise<Outcome<UiFile, 'not_found'>>;
}

/** The global a bundle defines: the agent's name with anything but letters and digits as `_`. */
export function uiGlobalName(agent: string): string {
  return `__LGUI_${agent.replace(/[^a-zA-Z0-9]/g, '_')}`;
}
