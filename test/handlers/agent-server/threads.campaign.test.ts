// The generated campaign (campaign.ts) in npm test: a fixed seed, a bounded count, on both
// stores. The release checks run it longer (threads.campaign.release.test.ts); CAMPAIGN_SEED
// and CAMPAIGN_RUNS run it with another seed or longer (docs/development.md).
import { after, before, describe, test } from 'node:test';
import { inProcessApp, type InProcessApp } from '../../support/server.ts';
import { BACKENDS } from '../../support/bothStores.ts';
import { freshDatabaseUrl } from '../../support/postgres.ts';
import { campaignOptions, runCampaign } from './campaign.ts';

for (const backend of BACKENDS.filter((b) => !process.env.CAMPAIGN_BACKEND || b === process.env.CAMPAIGN_BACKEND)) {
  describe(`the generated campaign (${backend})`, () => {
    let app: InProcessApp;
    before(async () => {
      app = await inProcessApp({ dataDir: null, exampleGraphs: 'all', env: backend === 'postgres' ? { DATABASE_URL: await freshDatabaseUrl() } : {} });
    });
    after(() => app?.close());

    test('no write or read answers 5xx, and nothing stored changes unless a write names it', async () => {
      await runCampaign(app, campaignOptions({ seed: 84, numRuns: 12, maxWrites: 6 }));
    });
  });
}
