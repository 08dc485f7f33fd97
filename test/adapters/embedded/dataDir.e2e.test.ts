// Issue 11, items 5–7: the embedded store's data directory. Damage is never skipped silently:
// only an incomplete last journal line (a write never acknowledged) is dropped, with a
// warning; anything else refuses to start naming the file, the line and what to do, and
// `agentplane store check|repair` report and mend it. One server per directory (a LOCK file
// naming the holder's pid). The directory is private: 0700, its files 0600.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { openJournalStore, type JournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { checkStore, repairStore } from '../../../src/adapters/embedded/storeTool.ts';
import { createLogger } from '../../../src/runtime/logging/logger.ts';
import { ROOT, spawnServer, tempDir } from '../../support/server.ts';

interface Item {
  id: string;
  n: number;
}

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), ...args], { encoding: 'utf8', env: { ...process.env, PORT: '' } });

/**
 * `agentplane store check|repair <dir>` in this process: the commands are these two calls, their
 * results the exit code (the first test and the live-server case run the real commands).
 */
function storeTool(command: 'check' | 'repair', dir: string): { status: number; stdout: string } {
  const lines: string[] = [];
  const status = (command === 'check' ? checkStore : repairStore)(dir, (line) => lines.push(line));
  return { status, stdout: lines.map((l) => `${l}\n`).join('') };
}

/** Leaves the store as kill -9 would (journal as it is, no final snapshot), lock released. */
const abandon = (store: JournalStore) => (store as unknown as { releaseLock: () => void }).releaseLock();

/** A directory with `snapshotted` items in shards and `journalled` more only in the journal. */
async function makeDataDir(snapshotted: number, journalled: number): Promise<string> {
  const dataDir = tempDir();
  let store = await openJournalStore({ dataDir });
  let items = store.collection<Item>('items');
  for (let n = 0; n < snapshotted; n += 1) await items.put(`s${n}`, { id: `s${n}`, n });
  await store.close();
  store = await openJournalStore({ dataDir });
  items = store.collection<Item>('items');
  for (let n = 0; n < journalled; n += 1) await items.put(`j${n}`, { id: `j${n}`, n });
  abandon(store);
  return dataDir;
}

const journal = (dataDir: string) => {
  const files = fs
    .readdirSync(path.join(dataDir, 'journal'))
    .filter((f) => /^\d+\.log$/.test(f))
    .sort();
  return path.join(dataDir, 'journal', files.at(-1)!);
};

function replaceLine(file: string, line: number, text: string): void {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines[line - 1] = text;
  fs.writeFileSync(file, lines.join('\n'));
}

async function refusal(dataDir: string): Promise<string> {
  const err = await openJournalStore({ dataDir }).then(
    (store) => {
      abandon(store);
      return null;
    },
    (e: Error) => e,
  );
  assert.ok(err, 'the store opened a damaged directory');
  return err.message;
}

async function count(dataDir: string): Promise<number> {
  const store = await openJournalStore({ dataDir });
  const n = await store.collection('items').count();
  await store.close();
  return n;
}

describe('a damaged data directory', () => {
  test('a bad line inside the journal: a real server refuses to start naming file, line and what to do; check reports it; repair keeps every readable record', async () => {
    const dataDir = await makeDataDir(0, 10);
    const file = path.basename(journal(dataDir)).replace('.', '\\.');
    replaceLine(journal(dataDir), 5, '{"half a rec');
    await assert.rejects(spawnServer(['--data', dataDir]), (err: Error) => {
      assert.match(err.message, /server exited with 1/);
      assert.match(err.message, new RegExp(`journal/${file} line 5 \\(\\d+ bytes\\) is not JSON`));
      assert.match(err.message, /agentplane store check/);
      assert.match(err.message, /agentplane store repair/);
      return true;
    });
    assert.equal(fs.existsSync(path.join(dataDir, 'LOCK')), false, 'a refused start left its lock behind');
    const checked = cli('store', 'check', dataDir);
    assert.equal(checked.status, 1, checked.stdout + checked.stderr);
    assert.match(checked.stdout, new RegExp(`journal/${file}:5 line 5`));
    const repaired = cli('store', 'repair', dataDir);
    assert.equal(repaired.status, 0, repaired.stdout + repaired.stderr);
    assert.match(repaired.stdout, /kept 9 line\(s\), dropped line 5/);
    assert.ok(
      fs.readdirSync(path.join(dataDir, 'journal')).some((f) => new RegExp(`^${file}\\.corrupt-`).test(f)),
      'the original was moved aside',
    );
    assert.equal(storeTool('check', dataDir).status, 0);
    const server = await spawnServer(['--data', dataDir]);
    await server.kill('SIGTERM');
    assert.equal(await count(dataDir), 9);
  });

  test('a line that is JSON but not a record (once: "batch is not iterable") is named too', async () => {
    const dataDir = await makeDataDir(0, 3);
    replaceLine(journal(dataDir), 2, '{}');
    assert.match(await refusal(dataDir), /journal\/\d{8}\.log line 2 \(2 bytes\) is not a journal record/);
  });

  test('an incomplete last line (a write cut short, never acknowledged) is dropped with a warning; the rest loads', async () => {
    const dataDir = await makeDataDir(5, 5);
    fs.appendFileSync(journal(dataDir), '[["items","torn",99,{"id":"to');
    const lines: string[] = [];
    const store = await openJournalStore({ dataDir, log: createLogger('warn', {}, (l) => lines.push(l)) });
    assert.equal(await store.collection('items').count(), 10);
    assert.ok(
      lines.some((l) => l.includes('the journal ends in an incomplete line')),
      lines.join(''),
    );
    await store.close();
    assert.equal(storeTool('check', dataDir).status, 0);
  });

  test('an incomplete line at the end of an older journal file is damage, not a crash', async () => {
    const dataDir = await makeDataDir(0, 3);
    const older = journal(dataDir);
    fs.appendFileSync(older, '[["items","torn"');
    fs.writeFileSync(path.join(dataDir, 'journal', '00000009.log'), '');
    assert.match(
      await refusal(dataDir),
      new RegExp(`${path.basename(older).replace('.', '\\.')} ends in an incomplete line 4 .* although a newer journal file follows it`),
    );
  });

  test('a snapshot shard listed in store.json but missing refuses to start; repair drops it and says so', async () => {
    const dataDir = await makeDataDir(200, 0);
    const shards = fs.readdirSync(path.join(dataDir, 'collections', 'items'));
    assert.ok(shards.length > 10);
    const gone = shards[3];
    const held = Object.keys(JSON.parse(fs.readFileSync(path.join(dataDir, 'collections', 'items', gone), 'utf8')).records).length;
    fs.rmSync(path.join(dataDir, 'collections', 'items', gone));
    assert.match(await refusal(dataDir), new RegExp(`collections/items/${gone.replace('.', '\\.')} is listed in store\\.json but missing`));
    const repaired = storeTool('repair', dataDir);
    assert.equal(repaired.status, 0, repaired.stdout);
    assert.match(repaired.stdout, /dropped from store\.json/);
    assert.equal(await count(dataDir), 200 - held);
  });

  test('a malformed store.json or shard refuses to start naming the file; repair moves it aside and keeps the rest', async () => {
    const dataDir = await makeDataDir(100, 5);
    fs.writeFileSync(path.join(dataDir, 'store.json'), '{"version":1,"sha');
    assert.match(await refusal(dataDir), /store\.json is not JSON/);
    let repaired = storeTool('repair', dataDir);
    assert.equal(repaired.status, 0, repaired.stdout);
    assert.match(repaired.stdout, /store\.json: unreadable, moved to store\.json\.corrupt-.*written again \(64 shards\)/);
    assert.equal(await count(dataDir), 105, 'store.json rebuilt from the shard files');

    const shardDir = path.join(dataDir, 'collections', 'items');
    const victim = fs.readdirSync(shardDir).find((f) => f.endsWith('.json'))!;
    const text = fs.readFileSync(path.join(shardDir, victim), 'utf8');
    const held = Object.keys(JSON.parse(text).records).length;
    fs.writeFileSync(path.join(shardDir, victim), text.slice(0, text.length / 2));
    assert.match(await refusal(dataDir), new RegExp(`collections/items/${victim.replace('.', '\\.')} is not JSON`));
    const checked = storeTool('check', dataDir);
    assert.equal(checked.status, 1);
    repaired = storeTool('repair', dataDir);
    assert.equal(repaired.status, 0, repaired.stdout);
    assert.ok(fs.readdirSync(shardDir).some((f) => f.startsWith(`${victim}.corrupt-`)));
    assert.equal(await count(dataDir), 105 - held);
  });
});

describe('a data directory whose journal was deleted', () => {
  test('never snapshotted: a real server refuses to start naming the missing journal, rather than starting empty; repair is the way to initialise it', async () => {
    const dataDir = await makeDataDir(0, 10);
    fs.rmSync(path.join(dataDir, 'journal'), { recursive: true });
    await assert.rejects(spawnServer(['--data', dataDir]), (err: Error) => {
      assert.match(err.message, /server exited with 1/);
      assert.match(
        err.message,
        new RegExp(
          `${path.join(dataDir, 'journal').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds no journal file .* every write since the last snapshot, all of them if none was taken, is missing`,
        ),
      );
      assert.match(err.message, /agentplane store repair/);
      return true;
    });
    assert.equal(fs.existsSync(path.join(dataDir, 'LOCK')), false, 'a refused start left its lock behind');
    const checked = storeTool('check', dataDir);
    assert.equal(checked.status, 1, checked.stdout);
    assert.match(checked.stdout, /journal holds no journal file/);
    const repaired = storeTool('repair', dataDir);
    assert.equal(repaired.status, 0, repaired.stdout);
    assert.match(repaired.stdout, /started an empty journal/);
    assert.equal(await count(dataDir), 0, 'told to initialise, it starts empty');
  });

  test('after a snapshot: refused too (the writes since the snapshot are gone), not started on the snapshot alone', async () => {
    const dataDir = await makeDataDir(5, 5);
    for (const file of fs.readdirSync(path.join(dataDir, 'journal'))) fs.rmSync(path.join(dataDir, 'journal', file));
    assert.match(await refusal(dataDir), /journal holds no journal file/);
    assert.equal(storeTool('repair', dataDir).status, 0);
    assert.equal(await count(dataDir), 5);
  });

  test('a directory the server never used starts (and gets its journal before its store.json)', async () => {
    const dataDir = tempDir();
    assert.equal(await count(dataDir), 0);
    assert.equal(await count(dataDir), 0, 'a second start finds the journal the first one left');
  });
});

describe('one server per data directory', () => {
  test('a second server on the same directory refuses, naming the holder; a clean stop releases it; a killed holder is taken over', async () => {
    const dataDir = tempDir();
    const first = await spawnServer(['--data', dataDir]);
    try {
      await assert.rejects(spawnServer(['--data', dataDir]), (err: Error) => {
        assert.match(err.message, /server exited with 1/);
        assert.match(err.message, new RegExp(`in use by another agentplane server \\(pid ${first.process.pid}\\b`));
        return true;
      });
      assert.equal(JSON.parse(fs.readFileSync(path.join(dataDir, 'LOCK'), 'utf8')).pid, first.process.pid);
      // store check reads without taking it; repair will not run beside a live server
      assert.equal(storeTool('check', dataDir).status, 0);
      const repair = cli('store', 'repair', dataDir);
      assert.equal(repair.status, 1);
      assert.match(repair.stderr, new RegExp(`pid ${first.process.pid}`));
    } finally {
      assert.equal(await first.kill('SIGTERM'), 0);
    }
    assert.equal(fs.existsSync(path.join(dataDir, 'LOCK')), false, 'a clean stop leaves no lock');
    const second = await spawnServer(['--data', dataDir]);
    await second.kill('SIGKILL');
    assert.ok(fs.existsSync(path.join(dataDir, 'LOCK')), 'kill -9 leaves the lock');
    const third = await spawnServer(['--data', dataDir]);
    assert.match(third.output(), /taking over a stale data directory lock/);
    await third.kill('SIGTERM');
  });
});

describe('the data directory is private', () => {
  const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

  test('created 0700, every file in it 0600 (journal, snapshots, store.json, LOCK, API keys)', async () => {
    const dataDir = path.join(tempDir(), 'nested', 'data');
    const server = await spawnServer(['--data', dataDir], { AGENTPLANE_API_KEYS: '' });
    try {
      const res = await fetch(`${server.url}/threads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"metadata":{"secret":"s3cret"}}',
      });
      assert.equal(res.status, 200);
      assert.equal(mode(path.join(dataDir, 'LOCK')), '600');
    } finally {
      assert.equal(await server.kill('SIGTERM'), 0);
    }
    const files: string[] = [];
    const walk = (dir: string) => {
      assert.equal(mode(dir), '700', dir);
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const at = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(at);
        else files.push(at);
      }
    };
    walk(dataDir);
    const names = files.map((f) => path.relative(dataDir, f));
    for (const expected of ['store.json', 'api-keys.json']) assert.ok(names.includes(expected), `${expected} in ${names}`);
    assert.ok(names.some((n) => n.startsWith('journal/')));
    assert.ok(names.some((n) => n.startsWith('collections/')));
    for (const file of files) assert.equal(mode(file), '600', path.relative(dataDir, file));
  });

  test('a directory left open by an earlier version (0755, files 0644) is made private on start', async () => {
    const dataDir = await makeDataDir(10, 3);
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(journal(dataDir), 0o644);
    fs.chmodSync(path.join(dataDir, 'store.json'), 0o644);
    const store = await openJournalStore({ dataDir });
    assert.equal(mode(dataDir), '700');
    assert.equal(mode(path.join(dataDir, 'store.json')), '600');
    for (const f of fs.readdirSync(path.join(dataDir, 'journal'))) assert.equal(mode(path.join(dataDir, 'journal', f)), '600');
    await store.close();
  });
});
