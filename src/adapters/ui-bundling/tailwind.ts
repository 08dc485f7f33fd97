// Tailwind CSS in generative UI modules, as upstream bundles them (its bundler runs Tailwind
// over a module's CSS): a stylesheet that uses Tailwind (`@import "tailwindcss"`, `@apply`,
// `@theme`, …) is compiled with Tailwind v4, scanning the project for the classes its
// components use; `tailwindcss` itself comes from the project, which installs it as it would
// for upstream. Any other stylesheet is bundled as written, and Tailwind is not even loaded.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Plugin } from 'esbuild';

const USES_TAILWIND = /@import\s+["']tailwindcss|@tailwind\b|@apply\b|@theme\b|@plugin\b|@config\b|@source\b|@utility\b|@variant\b|@custom-variant\b/;

export function tailwindPlugin(projectDir: string): Plugin {
  return {
    name: 'agentplane-tailwind',
    setup(build) {
      build.onLoad({ filter: /\.css$/ }, async (args) => {
        const source = await fs.readFile(args.path, 'utf8');
        if (!USES_TAILWIND.test(source)) return undefined;
        const [{ default: postcss }, { default: tailwind }] = await Promise.all([import('postcss'), import('@tailwindcss/postcss')]);
        const result = await postcss([tailwind({ base: projectDir })]).process(source, { from: args.path });
        return { contents: result.css, loader: 'css', resolveDir: path.dirname(args.path) };
      });
    },
  };
}
