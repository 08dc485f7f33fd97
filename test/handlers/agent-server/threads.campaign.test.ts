// The generated campaign (campaign.ts) in npm test: a fixed seed, a bounded count, on both
// stores. The release checks run it longer (threads.campaign.release.test.ts); CAMPAIGN_SEED
// and CAMPAIGN_RUNS run it with another seed or longer (docs/development.md).
import { after, before, describe, test } from 'node:test';
import { tempDir, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { BACKENDS } from '../../support/bothStores.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';
import { campaignOptions, runCampaign } from './campaign.ts';

// 'paged': the embedded store as a server runs it, on a data directory, its threads, runs and
// checkpoints on disk behind a 1 MB cache (issue 91)
const CAMPAIGN_BACKENDS = [...BACKENDS, 'paged'] as const;

for (const backend of CAMPAIGN_BACKENDS.filter((b) => !process.env.CAMPAIGN_BACKEND || b === process.env.CAMPAIGN_BACKEND)) {
  describe(`the generated campaign (${backend})`, () => {
    let app: InProcessApp;
    before(async () => {
      const store: { dataDir: string | null; env: Record<string, string> } =
        backend === 'postgres'
          ? { dataDir: null, env: { DATABASE_URL: await migratedDatabaseUrl() } }
          : backend === 'paged'
            ? { dataDir: tempDir('campaign-paged-'), env: { AGENTPLANE_STORE_CACHE_MB: '1' } }
            : { dataDir: null, env: {} };
      app = await areaApp('agent-server', { ...store, exampleGraphs: 'all' });
    });
    after(() => app?.close());

    test('no write or read answers 5xx, and nothing stored changes unless a write names it', async () => {
      await runCampaign(app, campaignOptions({ seed: 84, numRuns: 12, maxWrites: 6 }));
    });
  });
}
