// The CLI as a user runs it: first start creates and prints a key that later starts reuse;
// SIGTERM drains and flushes the store; --mock works (the bin wrapper's usage: cli.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnServer, tempDir } from '../support/server.ts';

test('first start creates an API key, prints it, keeps it; a restart reuses it silently', async () => {
  const dataDir = tempDir();
  const env = { AGENTPLANE_API_KEYS: '', AGENTPLANE_MEMORY: '' };
  const first = await spawnServer(['--data', dataDir], env);
  try {
    const printed = /API key \(created on first start\): (\S+)/;
    for (let i = 0; i < 100 && !printed.test(first.output()); i += 1) await new Promise((r) => setTimeout(r, 20));
    const key = printed.exec(first.output())?.[1];
    assert.ok(key, first.output());
    const ok = await fetch(`${first.url}/v2/deployments`, { headers: { 'x-api-key': key } });
    assert.equal(ok.status, 200);
    assert.ok(fs.existsSync(path.join(dataDir, 'api-keys.json')));
    assert.equal(await first.kill('SIGTERM'), 0, 'SIGTERM exits cleanly');
    const second = await spawnServer(['--data', dataDir], env);
    try {
      assert.doesNotMatch(second.output(), /created on first start/);
      const again = await fetch(`${second.url}/v2/deployments`, { headers: { 'x-api-key': key } });
      assert.equal(again.status, 200);
    } finally {
      await second.kill('SIGTERM');
    }
  } finally {
    await first.kill();
  }
});

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
    assert.match(server.output(), /"mode":"mock"/);
  } finally {
    await server.kill('SIGTERM');
  }
});
