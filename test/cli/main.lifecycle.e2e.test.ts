// The CLI as a user runs it (the key a first start creates and prints, and a restart reuses:
// settings.test.ts): SIGTERM drains and flushes the store; --mock works (the bin wrapper's usage: cli.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnServer, tempDir } from '../support/server.ts';
import { logLine } from '../support/logLines.ts';

test('SIGTERM flushes the store: snapshots written, one empty journal segment left', async () => {
  const dataDir = tempDir();
  const server = await spawnServer(['--data', dataDir], { AGENTPLANE_API_KEYS: `k1:6f1d3c1e-8a55-4f51-9a59-3c7b1f0f2a11` });
  const res = await fetch(`${server.url}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  await res.text();
  assert.equal(await server.kill('SIGTERM'), 0);
  const journal = fs.readdirSync(path.join(dataDir, 'journal'));
  assert.ok(journal.length <= 1, `journal segments left: ${journal}`);
  for (const f of journal) assert.equal(fs.statSync(path.join(dataDir, 'journal', f)).size, 0);
});

test('--mock serves mock mode', async () => {
  const server = await spawnServer(['--mock']);
  try {
    const res = await fetch(`${server.url}/ok`);
    assert.equal(res.status, 200);
    assert.equal(logLine(server.output(), 'agentplane listening')?.mode, 'mock');
  } finally {
    await server.kill('SIGTERM');
  }
});
