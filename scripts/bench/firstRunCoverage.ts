// `npx tsx scripts/bench/firstRunCoverage.ts <dir> [files]`: the functions a start's first run
// was the first to call, thread by thread (issue 89: what V8 compiles on the first run's path is
// what the warm-up did not reach). Made from firstRun.ts with FIRST_RUN_COVERAGE=<dir>: each
// start's threads wrote their coverage before the first run (counts since the start) and after
// it (counts of the first run alone; v8.takeCoverage() resets them). A function counted in the
// second and in none of the first ran first in the first run. Printed per start and thread
// (the main thread is 0): how many such functions, then by file how many and which (up to
// `files` files, the most first).
import fs from 'node:fs';
import path from 'node:path';

interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; endOffset: number; count: number }[];
}
interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

const [dir, filesArg] = process.argv.slice(2);
const maxFiles = Number(filesArg ?? 40);

/** Call counts by function ("url offset name"), from one coverage file. */
function counts(file: string): Map<string, number> {
  const { result } = JSON.parse(fs.readFileSync(file, 'utf8')) as { result: ScriptCoverage[] };
  const byFunction = new Map<string, number>();
  for (const script of result) {
    if (!script.url.startsWith('file:') && !script.url.startsWith('node:')) continue;
    for (const fn of script.functions) byFunction.set(`${script.url} ${fn.ranges[0].startOffset} ${fn.functionName || '(anonymous)'}`, fn.ranges[0].count);
  }
  return byFunction;
}

const short = (url: string) => url.replace(/^file:\/\/.*?\/node_modules\//, '').replace(/^file:\/\/.*?\/(dist\/)?(src|examples)\//, '$2/');

for (const start of fs.readdirSync(dir).sort()) {
  // coverage-<pid>-<time>-<thread>.json, in the order written
  const files = fs
    .readdirSync(path.join(dir, start))
    .filter((f) => f.startsWith('coverage-'))
    .map((f) => ({ f, time: Number(f.split('-')[2]), thread: f.split('-')[3].replace('.json', '') }))
    .sort((a, b) => a.time - b.time);
  const threads = [...new Set(files.map((x) => x.thread))].sort((a, b) => Number(a) - Number(b));
  for (const thread of threads) {
    const [before, first] = files.filter((x) => x.thread === thread);
    if (!first) continue;
    const ranBefore = counts(path.join(dir, start, before.f));
    const inFirst = counts(path.join(dir, start, first.f));
    const fresh = [...inFirst].filter(([key, count]) => count > 0 && !(ranBefore.get(key)! > 0)).map(([key]) => key);
    const called = [...inFirst.values()].filter((c) => c > 0).length;
    console.log(`${start}, thread ${thread}: the first run called ${called} functions, ${fresh.length} of them for the first time`);
    const byFile = new Map<string, string[]>();
    for (const key of fresh) {
      const [url, , name] = key.split(' ');
      byFile.set(short(url), [...(byFile.get(short(url)) ?? []), name]);
    }
    for (const [file, names] of [...byFile].sort((a, b) => b[1].length - a[1].length).slice(0, maxFiles))
      console.log(`  ${String(names.length).padStart(3)} ${file}: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', …' : ''}`);
  }
}
