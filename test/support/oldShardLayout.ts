// A data directory turned into the layout before the saved index became the shard file's trailer
// (issue 91, shardTrailer.ts): each paged shard ends `\n},"generation":"<hex>"}` and its index is a
// file of its own beside it, as the trees before wrote them — shard-N.index (pagedIndex.ts,
// version 2) for a paged collection, shard-N.a.index (groupedIndex.ts, version 3) for a grouped
// one. The records' bytes, and so every value's place, stay as they are. For the tests that a
// directory written before still opens and reads from its indexes.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

interface Trailed {
  index: unknown[][];
  head: { end: number; fields: string[]; seq: number; few?: object; holding?: unknown[]; rows?: unknown; groups?: [string, number, number, number][] };
}

/** Rewrites every trailed shard under `dir`'s collections; `indexes` false: no index files (the shards alone). */
export function toOldLayout(dir: string, indexes = true): void {
  const collections = path.join(dir, 'collections');
  for (const name of fs.readdirSync(collections)) {
    for (const entry of fs.readdirSync(path.join(collections, name))) {
      if (!/^shard-\d+\.json$/.test(entry)) continue;
      const file = path.join(collections, name, entry);
      const buffer = fs.readFileSync(file);
      const doc = JSON.parse(buffer.toString('utf8')) as Partial<Trailed>;
      if (!doc.head) continue;
      const { head, index } = doc as Trailed;
      const generation = randomBytes(16).toString('hex');
      fs.writeFileSync(file, Buffer.concat([buffer.subarray(0, head.end), Buffer.from(`\n},"generation":"${generation}"}`)]));
      if (!indexes) continue;
      const stat = fs.statSync(file);
      const common = { generation, size: stat.size, mtimeMs: stat.mtimeMs, fields: head.fields, seq: head.seq };
      if (head.groups) {
        const lines = index.map((rows) => JSON.stringify(rows));
        let at = 0;
        const groups = head.groups.map(([key, , , count], i) => {
          const line = [key, at, Buffer.byteLength(lines[i]!), count];
          at += Buffer.byteLength(lines[i]!) + 1;
          return line;
        });
        fs.writeFileSync(file.replace(/\.json$/, '.a.index'), `${JSON.stringify({ version: 3, ...common, groups })}\n${lines.join('\n')}`);
      } else {
        const oldHead = { version: 2, ...common, few: head.few, holding: head.holding };
        fs.writeFileSync(file.replace(/\.json$/, '.index'), `${JSON.stringify(oldHead)}\n${JSON.stringify(index[0])}`);
      }
    }
  }
}
