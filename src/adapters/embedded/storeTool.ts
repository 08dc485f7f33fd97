// `agentplane store check DIR` and `agentplane store repair DIR`: what a person runs when the
// server refuses to start on a damaged data directory. check reads everything the server
// reads, reports every problem (file, line, what repair would do) and exits non-zero when
// there is one; repair keeps every readable record, moves each damaged file aside as
// `<file>.corrupt-<time>` (nothing is deleted) and says what was dropped.
import fs from 'node:fs';
import path from 'node:path';
import {
  DIR_MODE,
  FILE_MODE,
  JOURNAL_MISSING,
  LOCK_FILE,
  META_FILE,
  acquireLock,
  asideName,
  journalDir,
  readDataDir,
  shardFilesOnDisk,
  shardOf,
  shardPath,
  writeFileAtomicSync,
  type DataDirRead,
  type Meta,
} from './dataDir.ts';
import { GROUPED_COLLECTIONS, groupOf } from './pagedCollections.ts';

const DEFAULT_SHARDS = 64;

function describe(dir: string, read: DataDirRead, print: (line: string) => void): void {
  let shardFiles = 0;
  let records = 0;
  for (const shards of read.shards.values()) {
    shardFiles += shards.size;
    for (const shard of shards.values()) records += Object.keys(shard.records).length;
  }
  const lines = read.segments.reduce((n, s) => n + s.batches.length, 0);
  print(
    `data directory ${dir}: ${read.shards.size} collection(s), ${records} record(s) in ${shardFiles} snapshot file(s), ${lines} journal line(s) in ${read.segments.length} journal file(s)`,
  );
  const lock = path.join(dir, LOCK_FILE);
  if (fs.existsSync(lock)) print(`  ${LOCK_FILE}: ${fs.readFileSync(lock, 'utf8').trim()} (a server has it open, or had it when it was killed)`);
  const last = read.segments.at(-1);
  if (last?.torn)
    print(
      `  note: ${path.relative(dir, last.file)} ends in an incomplete line ${last.torn.line} (${last.torn.bytes} bytes), a write never acknowledged; the server drops it on start`,
    );
}

/** Reports every problem; returns the exit code (0 sound, 1 damaged). */
export function checkStore(dir: string, print: (line: string) => void = console.log): number {
  if (!fs.existsSync(dir)) {
    print(`error: ${dir} does not exist`);
    return 1;
  }
  const read = readDataDir(dir, DEFAULT_SHARDS);
  describe(dir, read, print);
  if (read.problems.length === 0) {
    print('no problems found: the server can start on it');
    return 0;
  }
  print(`${read.problems.length} problem(s):`);
  for (const p of read.problems) print(`  ${p.file}${p.line ? `:${p.line}` : ''} ${p.what}\n    repair: ${p.repair}`);
  print(`run 'agentplane store repair ${dir}' with the server stopped (keep a copy of the directory first)`);
  return 1;
}

/** The shard count the shard files were written with, when store.json no longer says. */
function inferShardCount(read: DataDirRead): number {
  const placed: [string, number][] = [];
  let highest = -1;
  for (const [name, shards] of read.shards) {
    for (const [n, shard] of shards) {
      highest = Math.max(highest, n);
      // a grouped collection's record is in its group's shard (recordGroups.ts)
      for (const id of Object.keys(shard.records)) placed.push([name in GROUPED_COLLECTIONS ? groupOf(id) : id, n]);
    }
  }
  const fits = (count: number) => placed.every(([id, n]) => shardOf(id, count) === n);
  if (highest < DEFAULT_SHARDS && fits(DEFAULT_SHARDS)) return DEFAULT_SHARDS;
  for (let count = Math.max(1, highest + 1); count <= 65_536; count += 1) if (fits(count)) return count;
  return Math.max(DEFAULT_SHARDS, highest + 1);
}

/** Mends the directory; returns the exit code (0 repaired or nothing to do, 1 it could not). */
export function repairStore(dir: string, print: (line: string) => void = console.log): number {
  if (!fs.existsSync(dir)) {
    print(`error: ${dir} does not exist`);
    return 1;
  }
  const release = acquireLock(dir, (msg, fields) => print(`  ${msg} ${JSON.stringify(fields)}`));
  try {
    const read = readDataDir(dir, DEFAULT_SHARDS);
    const tornLast = read.segments.at(-1)?.torn !== undefined;
    if (read.problems.length === 0 && !tornLast) {
      print(`nothing to repair in ${dir}: no problems found`);
      return 0;
    }
    const now = new Date();
    const aside = (file: string) => {
      const to = asideName(file, now);
      fs.renameSync(file, to);
      return path.relative(dir, to);
    };
    const metaDamaged = read.problems.some((p) => p.file === META_FILE);
    const shardCount = metaDamaged ? inferShardCount(read) : read.shardCount;
    if (metaDamaged && fs.existsSync(path.join(dir, META_FILE)))
      print(`${META_FILE}: unreadable, moved to ${aside(path.join(dir, META_FILE))}; written again (${shardCount} shards)`);
    if (read.problems.includes(JOURNAL_MISSING)) {
      fs.mkdirSync(journalDir(dir), { recursive: true, mode: DIR_MODE });
      fs.writeFileSync(path.join(journalDir(dir), '00000001.log'), '', { mode: FILE_MODE });
      print(`journal: ${JOURNAL_MISSING.what}; started an empty journal — the server starts from the snapshots alone`);
    }
    for (const problem of read.problems) {
      if (problem.file === META_FILE || problem.file.startsWith('journal')) continue;
      const file = path.join(dir, problem.file);
      if (fs.existsSync(file)) print(`${problem.file}: ${problem.what}; moved to ${aside(file)} — records only it held are dropped`);
      else print(`${problem.file}: ${problem.what}; dropped from ${META_FILE} — records only it held are lost unless the journal has them`);
    }
    read.segments.forEach((segment, i) => {
      const torn = segment.torn && (i < read.segments.length - 1 || tornLast);
      if (segment.bad.length === 0 && !torn) return;
      const relative = path.relative(dir, segment.file);
      const text = fs.readFileSync(segment.file);
      const keep = Buffer.concat(segment.good.map(([from, to]) => text.subarray(from, to)));
      const moved = aside(segment.file);
      fs.writeFileSync(segment.file, keep, { mode: FILE_MODE });
      const dropped = segment.bad.map((b) => `line ${b.line} (${b.bytes} bytes)`);
      if (segment.torn) dropped.push(`incomplete last line ${segment.torn.line} (${segment.torn.bytes} bytes)`);
      print(`${relative}: kept ${segment.good.length} line(s), dropped ${dropped.join(', ')}; the original is ${moved}`);
    });
    const shards = new Set(read.problems.filter((p) => p.file.startsWith('collections')).map((p) => p.file));
    const collections: Record<string, number[]> = {};
    for (const [name, numbers] of Object.entries(shardFilesOnDisk(dir))) {
      collections[name] = numbers.filter((n) => !shards.has(path.relative(dir, shardPath(dir, name, n))));
    }
    const meta: Meta = { version: 1, shards: shardCount, collections };
    writeFileAtomicSync(path.join(dir, META_FILE), JSON.stringify(meta));
    const after = readDataDir(dir, DEFAULT_SHARDS);
    if (after.problems.length) {
      print(`still damaged after repair: ${after.problems.map((p) => `${p.file} ${p.what}`).join('; ')}`);
      return 1;
    }
    describe(dir, after, print);
    print('repaired: the server can start on it');
    return 0;
  } finally {
    release();
  }
}
