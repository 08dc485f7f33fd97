// The generated campaign (campaign.ts) in its longer form, for the release checks: more
// sequences, longer ones, another seed than npm test's, on both stores. CAMPAIGN_SEED and
// CAMPAIGN_RUNS override them (docs/development.md).
import { after, before, describe, test } from 'node:test';
import { inProcessApp, type InProcessApp } from '../../support/server.ts';
import { BACKENDS } from '../../support/bothStores.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';
import { campaignOptions, runCampaign } from './campaign.ts';

for (const backend of BACKENDS) {
  describe(`the generated campaign, longer (${backend})`, () => {
    let app: InProcessApp;
    before(async () => {
      app = await inProcessApp({ dataDir: null, exampleGraphs: 'all', env: backend === 'postgres' ? { DATABASE_URL: await migratedDatabaseUrl() } : {} });
    });
    after(() => app?.close());

    test('no write or read answers 5xx, and nothing stored changes unless a write names it', { timeout: 30 * 60_000 }, async () => {
      await runCampaign(app, campaignOptions({ seed: 8484, numRuns: 120, maxWrites: 10 }));
    });
  });
}
