/**
 * The headless entry: `npm run serve [-- --port 8411 --host 127.0.0.1 --data-dir ./lore-data]`.
 * Prints where it listens; stops gracefully on SIGINT/SIGTERM (in-flight requests finish, storage
 * is flushed and snapshotted, the data directory is released).
 */
import { ConfigError, readConfig } from './config';
import { startService } from './service';

async function main(): Promise<void> {
  let config;
  try {
    config = readConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }

  const log = (message: string) => console.error(`[lore] ${message}`);
  let service;
  try {
    service = await startService(config, { log });
  } catch (error) {
    console.error(`Lore LRS could not start: ${(error as Error).message}`);
    process.exit(1);
  }

  console.log(`Lore LRS listening on ${service.url}`);
  console.log(`  data directory: ${config.dataDir}`);
  console.log(`  admin API:      ${service.url}/admin/api`);
  console.log(`  web console:    ${service.url}/admin/`);
  if (service.generatedAdminToken) {
    console.log(`  admin token (shown once, only its hash is kept): ${service.generatedAdminToken}`);
  }

  // npm, tsx and a terminal each relay Ctrl-C to the process group, so one stop request often
  // arrives as two signals: later ones must not cut the snapshot short (the default action would).
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return log(`${signal} received again: still stopping`);
    stopping = true;
    log(`${signal} received: finishing requests and flushing storage`);
    try {
      await service.stop();
      process.exit(0);
    } catch (error) {
      console.error(`Lore LRS did not stop cleanly: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

void main();
