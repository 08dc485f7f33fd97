// The project's embeddings module (store.index.embed) loads as its other modules do: a
// TypeScript one through tsx when agentplane runs compiled, whether or not a TypeScript graph
// has registered tsx before it. It used to be a plain import(), which only worked once a
// graph had (with JavaScript graphs, or none: ERR_UNKNOWN_FILE_EXTENSION). npm test runs this
// file compiled, in a process of its own that loads no graph.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadEmbedder } from '../../../src/domain/memory/embeddings.ts';
import { ROOT } from '../../support/server.ts';

test('a TypeScript embeddings module loads with no TypeScript graph loaded before it', async () => {
  const embedder = await loadEmbedder({ embed: './memory.ts:letterEmbeddings', dims: 26, fields: ['text'] }, path.join(ROOT, 'test/fixtures/agent-server'));
  const [vector] = await embedder.embedDocuments(['abba']);
  assert.equal(vector.length, 26);
  assert.deepEqual(vector.slice(0, 3), [2, 2, 0]);
  assert.deepEqual(embedder.fields, ['text']);
});
