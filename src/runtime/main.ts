// CLI: `agentplane serve [--port 8123] [--host 127.0.0.1] [--data DIR] [--config FILE] [--mock] [--memory]`.
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startServer, type RunningServer } from './server.ts';
import type { ServerConfig } from './config.ts';
import type { Logger } from './logger.ts';
import { watchProject } from './watch.ts';
import { startBanner } from '../startBanner.ts';
import path from 'node:path';
import { createApplication } from '../app.ts';

const USAGE = `usage: agentplane serve|dev [--port 8123] [--host 127.0.0.1] [--data ./data] [--config agentplane.json] [--mock] [--memory]`;

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command !== 'serve' && command !== 'dev') {
    console.error(`unknown command: ${command}\n${USAGE}`);
    process.exit(2);
  }
  const config = loadConfig(rest);
  const log = createLogger(config.logLevel);
  const server = await startServer(config, createApplication, log);
  if (command === 'dev') {
    console.log(startBanner(config, server.url, 'dev'));
    if (!rest.includes('--no-reload')) watchForReload(config, server, log);
  }
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

/** agentplane dev: a change in the project folder reloads its graphs; the server keeps running. */
function watchForReload(config: ServerConfig, server: RunningServer, log: Logger): void {
  const dir = config.configFile ? path.dirname(config.configFile) : process.cwd();
  watchProject(
    dir,
    (files) => {
      log.info('project changed, reloading', { files: files.map((f) => path.relative(dir, f)) });
      server.reload().catch((err: Error) => log.error('reload failed; the previous graphs keep serving', { error: err.message }));
    },
    { ignore: config.dataDir ? [config.dataDir] : [] },
  );
  log.info('watching the project for changes', { dir });
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
