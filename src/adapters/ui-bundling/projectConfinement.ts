// A generative-UI bundle is made of the project's own files only: an import that resolves
// outside the project folder (`../../../etc/passwd`, an absolute path, a link out of it) would
// put a file of the server's machine into a bundle anyone with the agent's URL can fetch.
// esbuild resolves links to their real path, so a link out of the project is caught too.
// Installed packages are the exception: a workspace hoists them above the project folder (or
// links them), and they are what the project declared, found by module resolution.
import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'esbuild';

export function projectConfinementPlugin(projectDir: string): Plugin {
  const root = fs.realpathSync(projectDir);
  const inside = (file: string) => {
    const relative = path.relative(root, file);
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  };
  const installed = (file: string) => file.split(path.sep).includes('node_modules');
  return {
    name: 'agentplane-project-confinement',
    setup(build) {
      build.onLoad({ filter: /.*/, namespace: 'file' }, (args) =>
        inside(args.path) || installed(args.path)
          ? undefined
          : { errors: [{ text: `${args.path} is outside the project folder: a UI bundle imports only the project's own files and installed packages` }] },
      );
    },
  };
}
