// docs/compatibility.md's list, written from deliberate-differences.json (the one list of
// where agentplane differs from the upstream server on purpose). `--write` puts it into
// docs/compatibility.md; compatibility.differential.test.ts fails when the two disagree.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readDeliberate } from './compare.ts';
import { UPSTREAM_CLI_PACKAGE, UPSTREAM_CLI_VERSION } from '../../scripts/upstream/langgraphCli.ts';

export const COMPATIBILITY_DOC = fileURLToPath(new URL('../../docs/compatibility.md', import.meta.url));
const START = '<!-- compatibility:start (generated from test/differential/deliberate-differences.json: npx tsx test/differential/compatibility.ts --write) -->';
const END = '<!-- compatibility:end -->';

export function compatibilitySection(): string {
  const rows = readDeliberate().map(
    (d) =>
      `- **${d.summary}** ${d.reason}${d.upstreamVaries ? ` Upstream's side varies by timing: ${d.upstreamVaries}` : ''} (scenario: ${d.scenario === '*' ? 'every' : `"${d.scenario}"`})`,
  );
  return [
    START,
    `The differential suite (\`test/differential\`, \`npm run test:differential\`) starts the upstream JS dev server (\`${UPSTREAM_CLI_PACKAGE}\` ${UPSTREAM_CLI_VERSION} \`dev\`, installed from npm on first use into \`.cache/upstream\`, each attempt bounded by \`AGENTPLANE_UPSTREAM_INSTALL_TIMEOUT_MS\`, 300000 by default) and \`agentplane dev\` on the same project (\`test/fixtures/differential-project\`: interrupts, a subgraph, a factory, Zod state and context schemas, graphs that declare their input and output, a store, custom auth, an \`http.app\` route and middleware), sends every scenario to both with the SDK's \`Client\`, \`RemoteGraph\`, \`useStream\` and raw HTTP/SSE, and compares what the client saw with ids and timestamps normalised. Its corpus (\`corpus.test.ts\`, \`test/fixtures/corpus-project\`) serves the shapes users run the same way — a ReAct agent over \`initChatModel\` with the OpenAI and the Anthropic client, \`createAgent\` with human-in-the-loop middleware, a \`createDeepAgent\` with a subagent and a store backend, an email assistant that stops inside a subgraph, a memory agent over \`config.store\` whose model each run chooses through \`initChatModel\`, a data-enrichment agent with a declared input, a forced tool and \`withStructuredOutput\` — their model clients pointed at a fake OpenAI/Anthropic-compatible model server on loopback (\`test/support/fakeModelServer.ts\`). Its project-layout matrix (\`test/support/projectLayouts.ts\`) serves one graph per layout — packages with no \`"type"\`, \`"module"\` and \`"commonjs"\`, TypeScript and JavaScript graphs importing siblings as \`.ts\`, \`.js\` and extensionless, \`.mts\`, \`.cts\`, a tsconfig alias, a CommonJS dependency — and runs each on both. Any difference fails it except these, which are deliberate; an entry here that its scenario no longer shows fails it too (unless upstream's side of it is said to vary by timing), so this list is what differs.`,
    '',
    ...rows,
    END,
  ].join('\n');
}

/** docs/compatibility.md with its generated section replaced by a new one. */
export function documentWithSection(document: string): string {
  const from = document.indexOf(START);
  const to = document.indexOf(END);
  if (from < 0 || to < 0) throw new Error(`docs/compatibility.md has no generated section (between "${START}" and "${END}")`);
  return document.slice(0, from) + compatibilitySection() + document.slice(to + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  fs.writeFileSync(COMPATIBILITY_DOC, documentWithSection(fs.readFileSync(COMPATIBILITY_DOC, 'utf8')));
  console.log('docs/compatibility.md written');
}
