// docs/compatibility.md says exactly what deliberate-differences.json says.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { COMPATIBILITY_DOC, documentWithSection } from './compatibility.ts';

it('docs/compatibility.md matches deliberate-differences.json (regenerate: npx tsx test/differential/compatibility.ts --write)', () => {
  const document = fs.readFileSync(COMPATIBILITY_DOC, 'utf8');
  assert.equal(document, documentWithSection(document));
});
