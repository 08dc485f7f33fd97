// Reads each graph's schemas twice — from its source text (the fast reader, falling back to
// the checker when it cannot tell) and with the type checker alone — and says which reader
// answered and whether the two answers are the same JSON. Kept answers are not used.
// usage: npx tsx scripts/compare-schema-readers.ts path/to/graph.ts:export ...
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ROOT } from '../test/support/server.ts';

fs.rmSync(path.join(ROOT, 'node_modules', '.cache', 'agentplane', 'schemas'), { recursive: true, force: true });
const { schemaReadings, staticSchemas } = await import('../src/adapters/run-workers/staticSchemas.ts');
let differ = 0;
for (const graph of process.argv.slice(2)) {
  const [file, name] = graph.split(':');
  const before = schemaReadings.syntax;
  const fast = await staticSchemas(path.resolve(file), name);
  const reader = schemaReadings.syntax > before ? 'syntax' : 'checker';
  const checked = await staticSchemas(path.resolve(file), name, { checker: true });
  const same = isDeepStrictEqual(fast, checked);
  if (!same) {
    differ++;
    fs.writeFileSync(`/tmp/schemas-${name}-fast.json`, JSON.stringify(fast, null, 1));
    fs.writeFileSync(`/tmp/schemas-${name}-checker.json`, JSON.stringify(checked, null, 1));
  }
  console.log(`${graph}: ${reader}, ${same ? 'same' : 'DIFFERENT (see /tmp/schemas-' + name + '-*.json)'}`);
}
process.exit(differ ? 1 : 0);
