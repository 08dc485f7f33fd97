// `node --import ./recordLoads.mjs`: appends the URL of every module the process loads (ESM
// and CommonJS, through the loader hooks) to the file named by RECORD_LOADS, one a line.
import { register } from 'node:module';

const HOOKS = `
import fs from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) {
  fs.appendFileSync(file, url + '\\n');
  return next(url, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { file: process.env.RECORD_LOADS } });
