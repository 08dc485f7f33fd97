// `node --import ./recordLoads.mjs`: appends the URL of every module the process loads (ESM
// and CommonJS, through the loader hooks) to the file named by RECORD_LOADS, one a line. A
// chunk of the built server's bundle (dist/bundle/, scripts/bundleServer.ts) is followed by
// the URLs of the dist/ files it holds (its inputs.json), which its loading evaluates. A worker
// thread's lines begin `worker <threadId> ` (the run workers load the project's graphs too).
import { register } from 'node:module';
import { threadId } from 'node:worker_threads';

const HOOKS = `
import fs from 'node:fs';
let file;
const bundles = new Map();
function held(url) {
  const at = url.lastIndexOf('/dist/bundle/');
  if (at < 0 || !url.startsWith('file:')) return [];
  const dir = url.slice(0, at + '/dist/bundle/'.length);
  if (!bundles.has(dir)) {
    try {
      bundles.set(dir, JSON.parse(fs.readFileSync(new URL('inputs.json', dir), 'utf8')));
    } catch {
      bundles.set(dir, {});
    }
  }
  const dist = dir.slice(0, -'bundle/'.length);
  return (bundles.get(dir)[url.slice(dir.length)] ?? []).map((input) => new URL(input, dist).href);
}
let prefix = '';
export function initialize(data) { file = data.file; prefix = data.thread ? 'worker ' + data.thread + ' ' : ''; }
export async function load(url, context, next) {
  fs.appendFileSync(file, [url, ...held(url)].map((line) => prefix + line).join('\\n') + '\\n');
  return next(url, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { file: process.env.RECORD_LOADS, thread: threadId } });
