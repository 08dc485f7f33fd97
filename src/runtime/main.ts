// CLI: `agentplane serve [--port 8123] [--host 127.0.0.1] [--data DIR] [--config FILE] [--mock] [--memory]`.
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startServer } from './server.ts';
import { createApplication } from '../app.ts';

const USAGE = `usage: agentplane serve [--port 8123] [--host 127.0.0.1] [--data ./data] [--config agentplane.json] [--mock] [--memory]`;

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command !== 'serve') {
    console.error(`unknown command: ${command}\n${USAGE}`);
    process.exit(2);
  }
  const config = loadConfig(rest);
  const log = createLogger(config.logLevel);
  const server = await startServer(config, createApplication, log);
  if (server.createdKey) {
    // printed once, on the start that created it; it is kept in the data directory
    console.log(`\n  API key (created on first start): ${server.createdKey.key}\n  tenant: ${server.createdKey.tenants[0]}\n  try: curl -H 'X-Api-Key: ${server.createdKey.key}' ${server.url}/v2/deployments\n`);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    server.close().then(
      () => process.exit(0),
      (err) => {
        log.error('shutdown failed', { err });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
