// The logs a listener sends, kept bounded and cheap: many batches leave at most the cap on
// disk, no batch reads the log back (its cost does not grow with the file), a batch sent
// again is stored once, readers keep their place across the cut, and nothing blocks the loop.
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { RemoteLogFiles } from '../../../src/adapters/log-files/remoteLogFiles.ts';
import { LogBudget } from '../../../src/domain/control-plane/listenerLogBudget.ts';
import type { RevisionRecord } from '../../../src/domain/control-plane/records.ts';
import { tempDir } from '../../support/server.ts';

const revision = { id: 'r1', deployment_id: 'd1' } as RevisionRecord;
const batch = (from: number, count: number, width = 100) =>
  Array.from({ length: count }, (_, i) => ({
    timestamp: null,
    level: 'INFO' as const,
    message: `line ${String(from + i).padStart(8, '0')} ${'x'.repeat(width)}`,
  }));
const storedBytes = (dir: string) =>
  fs
    .readdirSync(path.join(dir, 'd1'))
    .filter((f) => /\.log(\.1)?$/.test(f))
    .reduce((sum, f) => sum + fs.statSync(path.join(dir, 'd1', f)).size, 0);

describe('remote revision logs', () => {
  it('keeps at most the cap however much is sent, reading nothing back and blocking nothing per batch', async (t) => {
    const dir = tempDir('agentplane-remote-logs-');
    const cap = 256 * 1024;
    const logs = new RemoteLogFiles(() => dir, cap);
    await logs.append(revision, 'deploy', 0, batch(0, 10));
    // from here on, every read and every synchronous call on the log counts
    const reads = [
      mock.method(fs.promises, 'readFile'),
      mock.method(fs, 'readFileSync'),
      mock.method(fs, 'createReadStream'),
      mock.method(fs.promises, 'open'),
    ];
    const sync = [mock.method(fs, 'appendFileSync'), mock.method(fs, 'writeFileSync'), mock.method(fs, 'statSync'), mock.method(fs, 'renameSync')];
    t.after(() => mock.restoreAll());
    let sent = 10;
    // ~2 MiB in 200 batches: 8 times the cap
    for (let i = 0; i < 200; i += 1) {
      await logs.append(revision, 'deploy', sent, batch(sent, 100));
      sent += 100;
    }
    assert.deepEqual(
      reads.map((m) => m.mock.callCount()),
      [0, 0, 0, 0],
      'a batch is appended without reading the log back',
    );
    assert.deepEqual(
      sync.map((m) => m.mock.callCount()),
      [0, 0, 0, 0],
      'no synchronous file call on the request loop',
    );
    mock.restoreAll();
    const bytes = storedBytes(dir);
    assert.ok(bytes <= cap, `stored ${bytes} bytes, cap ${cap}`);
    assert.ok(bytes >= cap / 2 - 20_000, `the newest half-cap at least is kept (${bytes})`);

    // the newest lines are there, in order, and the last is the last sent
    const page = await logs.read(revision, 'deploy', { order: 'desc', limit: 3 }, async () => false);
    assert.deepEqual(
      page.logs.map((l) => l.message.slice(0, 13)),
      [`line ${String(sent - 1).padStart(8, '0')}`, `line ${String(sent - 2).padStart(8, '0')}`, `line ${String(sent - 3).padStart(8, '0')}`],
    );
    // a batch sent again (a retry, a listener restart) is stored once
    await logs.append(revision, 'deploy', sent - 100, batch(sent - 100, 100));
    const again = await logs.read(revision, 'deploy', { order: 'desc', limit: 1 }, async () => false);
    assert.equal(again.next_offset, page.next_offset !== null ? String(Number(page.next_offset) + 2) : null);
  });

  it('gives a reader following the log every line across a cut, and resumes after a restart from what is on disk', async () => {
    const dir = tempDir('agentplane-remote-logs-');
    const cap = 64 * 1024;
    let logs = new RemoteLogFiles(() => dir, cap);
    let sent = 0;
    let cursor: string | undefined;
    const seen: string[] = [];
    const follow = async () => {
      for (;;) {
        const page = await logs.read(revision, 'build', { offset: cursor, limit: 1000 }, async () => false);
        seen.push(...page.logs.map((l) => l.message.slice(5, 13)));
        cursor = page.next_offset ?? cursor;
        if (page.logs.length === 0) return;
      }
    };
    for (let i = 0; i < 40; i += 1) {
      await logs.append(revision, 'build', sent, batch(sent, 20));
      sent += 20;
      await follow();
    }
    assert.deepEqual(
      seen,
      Array.from({ length: sent }, (_, i) => String(i).padStart(8, '0')),
      'each line read once, in order, though the log was cut several times',
    );
    // a new process (a restart) knows where the listener's numbering stands: a resent batch is not stored twice
    logs = new RemoteLogFiles(() => dir, cap);
    await logs.append(revision, 'build', sent - 20, batch(sent - 20, 30));
    sent += 10;
    await follow();
    assert.deepEqual(
      seen.slice(-11),
      Array.from({ length: 11 }, (_, i) => String(sent - 11 + i).padStart(8, '0')),
    );
  });

  it('lets a listener send its burst, then its rate, and says how long to wait', () => {
    let now = 0;
    const budget = new LogBudget(1000, 8000, () => now);
    assert.equal(budget.take('a', 8000), null);
    assert.equal(budget.take('a', 1), 1, 'the burst is spent');
    assert.equal(budget.take('b', 5000), null, 'each listener has its own budget');
    now += 3000;
    assert.equal(budget.take('a', 5000), 2, 'three seconds bought 3000 bytes: two more to wait');
    assert.equal(budget.take('a', 3000), null);
    now += 60_000;
    assert.equal(budget.take('a', 100_000), null, 'a batch past the burst passes on a full budget');
  });
});
