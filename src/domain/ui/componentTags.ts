// The HTML that loads one UI component of an agent, in the upstream server's form: a
// stylesheet link per CSS file, then the script whose onload renders the component into the
// shadow root the client names (it replaces `{{shadowRootId}}` itself).
import path from 'node:path';
import { uiGlobalName, type UiFile } from '../ports/uiBundles.ts';

/**
 * `baseUrl` is this server as the client sees it: loopback hosts get `http:`, any other a
 * scheme-relative URL (the page's own scheme), as upstream.
 */
export function componentTags(agent: string, component: string, files: readonly UiFile[], baseUrl: string): string {
  const server = new URL(baseUrl);
  const loopback = server.hostname === 'localhost' || server.hostname === '127.0.0.1';
  const base = `${loopback ? 'http:' : ''}//${server.host}${server.pathname.replace(/\/$/, '')}/ui/${encodeURIComponent(agent)}`;
  const tags = files.filter((f) => path.extname(f.name) === '.css').map((f) => `<link rel="stylesheet" href="${base}/${f.name}" />`);
  const script = files.find((f) => path.extname(f.name) === '.js');
  // the name is a JS string inside a single-quoted attribute: `'` and `&` would end or change it
  const name = JSON.stringify(component).replaceAll('&', '&amp;').replaceAll("'", '&#39;');
  if (script) tags.push(`<script src="${base}/${script.name}" onload='${uiGlobalName(agent)}.render(${name}, "{{shadowRootId}}")'></script>`);
  return tags.join('\n');
}
