// Text a graph wrote in Markdown (an interrupt's description, as agent-chat-ui renders it),
// shown formatted. A graph's text can carry what a user typed, so it is never trusted as
// HTML: markdown-it with `html: false` escapes any tag in it, and its link check refuses
// javascript:, vbscript:, file: and data: URLs. Links open in a new tab, without an opener.
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
const renderLink = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet('target', '_blank');
  tokens[idx].attrSet('rel', 'noreferrer noopener');
  return renderLink(tokens, idx, options, env, self);
};

export function Markdown({ text, class: className }: { text: string; class?: string }) {
  return <div class={`markdown${className ? ` ${className}` : ''}`} dangerouslySetInnerHTML={{ __html: md.render(text) }} />;
}
