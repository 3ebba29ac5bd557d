/**
 * The headless service (main.ts loads it): `npm run serve [-- --port 8411 --host 127.0.0.1 --data-dir ./lore-data]`;
 * `--help` lists every flag, `--reset-admin-token` replaces the admin token and stops.
 * Prints where it listens; stops gracefully on SIGINT/SIGTERM (in-flight requests finish, storage
 * is flushed and snapshotted, the data directory is released).
 */
import { mkdirSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { resetAdminToken, resetSharedAdminToken } from '../admin/admin-token';
import { ConfigError, helpText, readCommandLine, type ServiceConfig } from './config';
import { reachableLines } from './reachable-at';
import { databaseLabel, startService } from './service';
import { openPostgresStorage } from '../storage/postgres/postgres-storage';
import { lockDataDir } from '../storage/sqljs/lock';

async function main(): Promise<void> {
  let line;
  try {
    line = readCommandLine(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  if (line.command === 'help') {
    console.log(helpText());
    return;
  }
  if (line.command === 'reset-admin-token') return resetToken(line.config);
  const config = line.config;

  const log = (message: string) => console.error(`[lore] ${message}`);
  let service;
  try {
    service = await startService(config, { log });
  } catch (error) {
    console.error(`Lore LRS could not start: ${(error as Error).message}`);
    process.exit(1);
  }

  // One write: whoever reads the output (a terminal, a supervisor, a script waiting for the URL)
  // never sees the URL without the token that goes with it.
  const banner = [
    `Lore LRS listening on ${service.url}`,
    config.database ? `  database:       PostgreSQL at ${databaseLabel(config.database.url)}` : `  data directory: ${config.dataDir}`,
    `  admin API:      ${service.url}/admin/api`,
    `  web console:    ${service.url}/admin/`,
    ...reachableLines({ host: config.host, port: service.port, publicUrl: config.publicUrl, interfaces: networkInterfaces() }),
  ];
  if (service.generatedAdminToken) banner.push(`  admin token (shown once, only its hash is kept): ${service.generatedAdminToken}`);
  console.log(banner.join('\n'));

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

/** Replaces the admin token while no service holds the data directory; the new token is printed once. */
async function resetToken(config: ServiceConfig): Promise<void> {
  if (config.database) return resetSharedToken(config, config.database.url);
  mkdirSync(config.dataDir, { recursive: true });
  let lock;
  try {
    lock = await lockDataDir(config.dataDir, () => {});
  } catch (error) {
    console.error(`The admin token was not reset: ${(error as Error).message}`);
    process.exit(1);
  }
  try {
    const token = resetAdminToken(config.dataDir);
    console.log(`New admin token for ${config.dataDir} (shown once, only its hash is kept; the previous token no longer works):`);
    console.log(token);
    if (config.adminToken) console.error('Note: LRS_ADMIN_TOKEN is set in this environment, and a service started with it uses that token instead.');
  } finally {
    await lock.release();
  }
}

/** On PostgreSQL the token's hash is in the database: every process uses the new one from its next start. */
async function resetSharedToken(config: ServiceConfig, url: string): Promise<void> {
  let storage;
  try {
    storage = await openPostgresStorage({ url, poolSize: 1 });
  } catch (error) {
    console.error(`The admin token was not reset: ${(error as Error).message}`);
    process.exit(1);
  }
  try {
    const token = await resetSharedAdminToken(storage);
    console.log(`New admin token for PostgreSQL at ${databaseLabel(url)} (shown once, only its hash is kept; each service process uses it from its next start):`);
    console.log(token);
    if (config.adminToken) console.error('Note: LRS_ADMIN_TOKEN is set in this environment, and a service started with it uses that token instead.');
  } finally {
    await storage.close();
  }
}

void main();
