// `npx tsx scripts/bench/render.ts [dir]`: writes the report of a run again from its JSON
// (default docs/benchmarks.json) after a change to how the report reads its figures: the
// ratios, targets and their explanations are derived afresh, the figures stay the run's.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './agentplane.ts';
import { deriveRatios, type Measured, type Report } from './figures.ts';
import { writeReport } from './report.ts';

const dir = path.resolve(ROOT, process.argv[2] ?? 'docs');
const {
  ratios: _r,
  protocolRatios: _p,
  targets: _t,
  comparisons: _c,
  ...measured
} = JSON.parse(fs.readFileSync(path.join(dir, 'benchmarks.json'), 'utf8')) as Report;
const files = writeReport({ ...(measured as Measured), ...deriveRatios(measured as Measured) }, dir);
console.log(`wrote ${Object.values(files).join(', ')}`);
