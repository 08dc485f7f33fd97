// POST /ui/{agent} — the tags that load a UI component; GET /ui/{agent}/{file} — the bundle's files.
import path from 'node:path';
import { componentTags } from '../../domain/ui/componentTags.ts';
import type { UiBundleFiles } from '../../domain/ports/uiBundles.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { failed } from './failures.ts';

const MEDIA_TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css' };

export function uiHandlers(bundles: UiBundleFiles): Pick<AgentServerAreaHandlers, 'renderUiComponent' | 'getUiFile'> {
  return {
    async renderUiComponent({ path: { agent }, body }, ctx) {
      const files = await bundles.files(agent);
      if (!files.ok) return failed(files.failure);
      // from where the page reached this server (its Host, or a trusted proxy's), as upstream:
      // not a configured public URL, which a deployment sets to its own bind address
      return { status: 200, text: componentTags(agent, body.name, files.value, ctx.requestOrigin) };
    },
    async getUiFile({ path: { agent, file } }) {
      const found = await bundles.file(agent, file);
      if (!found.ok) return failed(found.failure);
      const type = MEDIA_TYPES[path.extname(file)] ?? 'text/plain';
      return { status: 200, headers: { 'Content-Type': `${type}; charset=utf-8` }, text: Buffer.from(found.value.contents).toString('utf8') };
    },
  };
}
