// The journal encodes each line into one buffer it reuses (journalStore.ts, lineBytes): a line
// follows a longer one, lines outgrow the buffer and one is over its cap (a buffer of its own),
// and every line reads back as it was written, whichever buffer it went through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { tempDir } from '../../support/tempDirs.ts';

test('lines of every size, longer and shorter in turn, read back as written after a restart', async () => {
  const dataDir = tempDir('agentplane-line-buffer-');
  // 1 KB, 70 KB (past the first buffer), 1.5 MB (past the cap), multi-byte text, then short again
  const sizes = [1_000, 70_000, 10, 1_500_000, 300_000, 5, 2_000];
  const value = (i: number, size: number) => ({ i, text: `${'é☃'.repeat(i)}${'x'.repeat(size)}`, tail: `line ${i}` });
  const store = await openJournalStore({ dataDir });
  const notes = store.collection<object>('notes');
  await notes.count();
  for (const [i, size] of sizes.entries()) await store.write([{ collection: 'notes', id: `n${i}`, value: value(i, size) }]);
  await store.close();

  const reopened = await openJournalStore({ dataDir });
  const again = reopened.collection<object>('notes');
  for (const [i, size] of sizes.entries()) assert.deepEqual(await again.get(`n${i}`), value(i, size), `line ${i} (${size} bytes)`);
  await reopened.close();
});
