// Which LangGraph.js a project's graphs import decides how agentplane drives them
// (shared/langGraphRelease.ts; issue 65, point 2): the stream options each 0.2 release has,
// and the oldest release served — a project on an older one is refused at start, saying why.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MemorySaver } from '@langchain/langgraph';
import { loadGraphs } from '../../src/domain/agent/graphs/graphs.ts';
import { langGraphReleaseNear, streamSupport } from '../../src/shared/langGraphRelease.ts';
import { tempDir } from '../support/server.ts';

/** A project whose node_modules holds @langchain/langgraph `version`, and a module exporting a compiled-graph-shaped object. */
function projectOn(version: string): string {
  const dir = tempDir('agentplane-langgraph-release-');
  fs.mkdirSync(path.join(dir, 'node_modules/@langchain/langgraph'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'node_modules/@langchain/langgraph/package.json'), JSON.stringify({ name: '@langchain/langgraph', version }));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src/graph.mjs'), 'export const graph = { stream() {}, getState() {} };\nexport const plain = async () => ({});\n');
  return dir;
}

describe("a project's LangGraph.js release", () => {
  it('is read beside its graph module, up the tree', () => {
    assert.equal(langGraphReleaseNear(path.join(projectOn('0.2.8'), 'src')), '0.2.8');
  });

  it('says what its stream takes: one mode as [mode, chunk] and `messages` from 0.2.20, `subgraphs` from 0.2.9', () => {
    assert.deepEqual(streamSupport('0.2.8'), { tuplesForOneMode: false, messagesMode: false, subgraphs: false });
    assert.deepEqual(streamSupport('0.2.9'), { tuplesForOneMode: false, messagesMode: false, subgraphs: true });
    assert.deepEqual(streamSupport('0.2.20'), { tuplesForOneMode: true, messagesMode: true, subgraphs: true });
    assert.deepEqual(streamSupport('1.7.3'), { tuplesForOneMode: true, messagesMode: true, subgraphs: true });
    assert.deepEqual(streamSupport('1.0.0-rc.1'), { tuplesForOneMode: true, messagesMode: true, subgraphs: true });
  });

  it('older than 0.2.0: its LangGraph graphs are refused at start with the reason; its plain functions load', async () => {
    const dir = projectOn('0.1.17');
    await assert.rejects(
      loadGraphs({ old: './src/graph.mjs:graph' }, dir, new MemorySaver()),
      /graph "old": the project imports @langchain\/langgraph 0\.1\.17; agentplane serves LangGraph\.js 0\.2\.0 and newer .*upgrade it/,
    );
    const registry = await loadGraphs({ plain: './src/graph.mjs:plain' }, dir, new MemorySaver());
    assert.equal(registry.get('plain')?.kind, 'plain');
    // 0.2.0 itself is served
    assert.equal((await loadGraphs({ g: './src/graph.mjs:graph' }, projectOn('0.2.0'), new MemorySaver())).get('g')?.release, '0.2.0');
  });
});
