// `npx tsx scripts/bench/firstRunBlocks.ts <start dir> [thread]`: the blocks of code a start's first
// run executed that none of its later runs did (issue 89), for one thread (0: the main thread, 1:
// the run worker). Made from firstRun.ts with FIRST_RUN_COVERAGE=<dir> (see firstRunCoverage.ts,
// which lists functions called for the first time): a thread's second coverage file holds the
// first run's counts alone and its third the later runs' (to the server's stop). NODE_V8_COVERAGE
// is V8's block coverage, so this finds, beside new functions, the branches only a first run takes
// in code the warm-up did run (a collection made on first use, a metric's first series, an array
// grown from nothing), and it does not depend on the machine's load as a profile does. A block is
// a range whose count is its own (V8 leaves out ranges whose count is their parent's); it counts
// as executed in the later runs when the innermost range around its start there has a count.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface Range {
  startOffset: number;
  endOffset: number;
  count: number;
  fn: string;
}

const [dir, thread = '0'] = process.argv.slice(2);
if (!dir) throw new Error('usage: firstRunBlocks.ts <start dir> [thread]');
const files = fs
  .readdirSync(dir)
  .filter((name) => name.endsWith(`-${thread}.json`))
  .sort((a, b) => Number(a.split('-').at(-2)) - Number(b.split('-').at(-2)));
if (files.length < 3) throw new Error(`thread ${thread}: ${files.length} coverage files, 3 needed (before, the first run, the later runs)`);

/** Every range of every function, by script URL (files only). */
function ranges(file: string): Map<string, Range[]> {
  const { result } = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as {
    result: { url: string; functions: { functionName: string; ranges: Omit<Range, 'fn'>[] }[] }[];
  };
  const byUrl = new Map<string, Range[]>();
  for (const script of result) {
    if (!script.url.startsWith('file:')) continue;
    byUrl.set(
      script.url,
      script.functions.flatMap((f) => f.ranges.map((r) => ({ ...r, fn: f.functionName }))),
    );
  }
  return byUrl;
}

const innermost = (list: Range[], at: number) =>
  list
    .filter((r) => r.startOffset <= at && at < r.endOffset)
    .reduce<Range | undefined>((a, r) => (!a || r.endOffset - r.startOffset < a.endOffset - a.startOffset ? r : a), undefined);

const first = ranges(files[1]);
const later = ranges(files[2]);
const sources = new Map<string, string>();
for (const [url, list] of first) {
  for (const range of list) {
    if (range.count === 0 || innermost(list, range.startOffset) !== range) continue;
    const there = innermost(later.get(url) ?? [], range.startOffset);
    if (there && there.count > 0) continue;
    const file = fileURLToPath(url);
    if (!sources.has(file)) sources.set(file, fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
    const text = sources.get(file)!;
    const line = text.slice(0, range.startOffset).split('\n').length;
    const shown = text.slice(range.startOffset, Math.min(range.endOffset, range.startOffset + 100)).replace(/\s+/g, ' ');
    console.log(`${file.replace(/^.*?(node_modules|dist)\//, '')}:${line} ${range.fn || '(anonymous)'} ×${range.count}: ${shown}`);
  }
}
