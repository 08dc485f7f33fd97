// What a project on a newer LangGraph.js release than agentplane's own sees of it (issue 65):
// each run's metadata names the project's release, as /info does (upstream reads the release
// its graphs import for both), and the drawing keeps what that release writes of a node
// (LangChain 1.4's `metadata`, `__tools` on a tool node), as upstream returns toJSON() whole.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT } from '../support/server.ts';
import { startDev, type DevProcess } from '../support/devProcess.ts';
import { pinnedProject, type PinnedProject } from '../support/pinnedLangGraph.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/langgraph-release-project');
const RELEASE = { langgraph: '1.7.3', with: ['@langchain/core@1.4.0', 'zod@4.6.7'] };

describe(`a project pinned to @langchain/langgraph ${RELEASE.langgraph}`, { timeout: 300_000 }, () => {
  let project: PinnedProject;
  let dev: DevProcess;
  let client: Client;
  let headers: Record<string, string>;
  before(async () => {
    project = await pinnedProject([`@langchain/langgraph@${RELEASE.langgraph}`, ...RELEASE.with], FIXTURE);
    dev = await startDev(project.dir);
    const apiKey = /API key \(created on first start\): (\S+)/.exec(dev.output())?.[1];
    headers = apiKey ? { 'x-api-key': apiKey } : {};
    client = new Client({ apiUrl: dev.url, apiKey, callerOptions: { maxRetries: 0 } });
  });
  after(async () => {
    await dev?.stop();
    project?.remove();
  });

  it('each checkpoint of a run names the project’s release in its metadata, as /info does', async () => {
    const info = (await (await fetch(`${dev.url}/info`, { headers })).json()) as { langgraph_js_version: string };
    assert.equal(info.langgraph_js_version, RELEASE.langgraph);
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'agent', { input: { messages: [{ role: 'user', content: 'time?' }] } });
    const history = await client.threads.getHistory(thread.thread_id);
    assert.ok(history.length >= 4, dev.output().slice(-2000));
    assert.deepEqual([...new Set(history.map((state) => state.metadata?.langgraph_version))], [RELEASE.langgraph]);
  });

  it('the drawing keeps the metadata the release gives a node: the tools of a tool node', async () => {
    const drawing = (await client.assistants.getGraph('agent')) as { nodes: { id: string | number; metadata?: Record<string, unknown> }[] };
    const tools = drawing.nodes.find((node) => node.id === 'tools');
    assert.deepEqual(tools?.metadata?.__tools, ['clock'], JSON.stringify(drawing.nodes));
  });
});
