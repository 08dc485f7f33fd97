// README.md's compatibility section says exactly what deliberate-differences.json says.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { README, readmeWithSection } from './compatibility.ts';

it('README.md compatibility section matches deliberate-differences.json (regenerate: npx tsx test/differential/compatibility.ts --write)', () => {
  const readme = fs.readFileSync(README, 'utf8');
  assert.equal(readme, readmeWithSection(readme));
});
