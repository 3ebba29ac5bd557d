/**
 * Service configuration from flags and environment variables; a flag wins over its variable.
 * SERVICE_SETTINGS and LIMIT_SETTINGS (limits/service-limits.ts) are the one list of flags: the parser and
 * `--help` both read them, so the help can never miss a flag.
 */
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { LIMIT_DEFAULTS, LIMIT_FLAG_OPTIONS, LIMIT_SETTINGS, readServiceLimits, type ServiceLimits } from '../limits/service-limits';

export const DEFAULT_PORT = 8411;

/** The service's own settings, in the order `--help` lists them. `flag: null`: a variable only. */
export const SERVICE_SETTINGS = [
  { flag: 'port', env: 'LRS_PORT', default: String(DEFAULT_PORT), help: 'port to listen on; 0 picks a free one' },
  { flag: 'host', env: 'LRS_HOST', default: '127.0.0.1', help: 'address to listen on; 0.0.0.0 serves other machines' },
  { flag: 'data-dir', env: 'LRS_DATA_DIR', default: './.lore-data', help: 'where the data lives; one service per directory' },
  { flag: 'public-url', env: 'LRS_PUBLIC_URL', default: 'the host each request came to', help: 'the base URL of every URL the service hands out, behind a proxy (its path is kept)' },
  { flag: null, env: 'LRS_ADMIN_TOKEN', default: 'generated', help: "the admin API's bearer token (at least 16 characters)" },
  { flag: 'backup-dir', env: 'LRS_BACKUP_DIR', default: 'backups beside the data directory', help: 'where scheduled backups are written (an external disk, a synced folder)' },
  { flag: 'backup-interval', env: 'LRS_BACKUP_INTERVAL', default: '24h', help: 'time between scheduled backups: 30s, 15m, 6h, 7d; off for none' },
  { flag: 'backup-keep', env: 'LRS_BACKUP_KEEP', default: '7', help: 'scheduled backups kept; older ones are deleted' },
  { flag: 'trust-proxy', env: 'LRS_TRUST_PROXY', default: 'none', help: 'proxies whose X-Forwarded-For gives the client address, and X-Forwarded-Proto and -Host the URLs the service hands out: addresses or CIDRs, comma-separated (127.0.0.1,10.0.0.0/8)' },
  { flag: 'database-url', env: 'LRS_DATABASE_URL', default: 'none: the embedded database in --data-dir', help: 'postgres://user:password@host:5432/db to keep the data in PostgreSQL (docs/deploy.md)' },
  { flag: 'db-pool-size', env: 'LRS_DB_POOL_SIZE', default: '10', help: 'PostgreSQL connections per service process' },
  { flag: 'db-statement-timeout', env: 'LRS_DB_STATEMENT_TIMEOUT', default: '30s', help: 'longest a PostgreSQL statement may run before the request answers 503' },
] as const;

const DURATION_UNITS_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30s`, `15m`, `6h`, `7d` in milliseconds; `off` (or 0) is null: no scheduled backups. */
export function parseBackupInterval(text: string): number | null {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'off' || trimmed === '0') return null;
  return parseDuration(text, 'backupInterval');
}

/** `500ms`, `30s`, `15m`, `6h`, `7d` in milliseconds, at least 1 s; `setting` names it in the error. */
function parseDuration(text: string, setting: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(text.trim().toLowerCase());
  if (!match) throw new ConfigError(`Invalid configuration (${setting}): "${text}" is not a duration such as 30s, 15m, 6h or 7d`);
  const unit = match[2]!;
  const ms = Number(match[1]) * (unit === 'ms' ? 1 : DURATION_UNITS_MS[unit as keyof typeof DURATION_UNITS_MS]);
  if (ms < 1000) throw new ConfigError(`Invalid configuration (${setting}): at least 1s`);
  return Math.round(ms);
}

/** Flags that ask for something other than serving. */
const COMMAND_FLAGS = {
  help: { type: 'boolean', short: 'h' },
  'reset-admin-token': { type: 'boolean' },
} as const;

const configSchema = z.object({
  port: z.coerce.number().int().min(0, 'port must be 0 to 65535').max(65535, 'port must be 0 to 65535'),
  host: z.string().min(1),
  dataDir: z.string().min(1),
  publicUrl: z.url().optional(),
  adminToken: z.string().min(16, 'LRS_ADMIN_TOKEN must have at least 16 characters').optional(),
  /** Scheduled backups (admin/backup-schedule.ts); absent in configs built by hand: none. */
  backups: z
    .object({
      dir: z.string().min(1),
      /** null: no scheduled backups. */
      intervalMs: z.number().int().positive().nullable(),
      keep: z.coerce.number().int('backup-keep must be a whole number').min(1, 'backup-keep must be at least 1'),
    })
    .optional(),
  /** Proxies whose X-Forwarded-For (and -Proto, -Host) are believed; absent or empty: none. */
  trustProxy: z
    .array(z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()], { error: 'trust-proxy takes IP addresses or CIDRs, comma-separated' }))
    .optional(),
  /** PostgreSQL storage (storage/postgres/); absent: the embedded sql.js database in dataDir. */
  database: z
    .object({
      url: z.string().regex(/^postgres(ql)?:\/\//, 'database-url must start with postgres:// (or postgresql://)'),
      poolSize: z.coerce.number().int('db-pool-size must be a whole number').min(1, 'db-pool-size must be at least 1').max(1000, 'db-pool-size must be at most 1000'),
      statementTimeoutMs: z.number().int().positive(),
    })
    .optional(),
});
/** `limits` is absent in configs built by hand (tests, the desktop app): the defaults apply. */
export type ServiceConfig = z.infer<typeof configSchema> & { limits?: ServiceLimits };

export type CommandLine =
  | { command: 'help' }
  | { command: 'serve'; config: ServiceConfig }
  | { command: 'reset-admin-token'; config: ServiceConfig };

export class ConfigError extends Error {}

/** What the command line asks for; throws ConfigError, whose message says what is wrong and points to --help. */
export function readCommandLine(argv: string[], env: NodeJS.ProcessEnv): CommandLine {
  let flags;
  try {
    flags = parseArgs({
      args: argv,
      options: {
        ...Object.fromEntries(SERVICE_SETTINGS.filter((setting) => setting.flag !== null).map((setting) => [setting.flag, { type: 'string' }])),
        ...LIMIT_FLAG_OPTIONS,
        ...COMMAND_FLAGS,
      },
      strict: true,
    }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}. Run with --help for every flag.`);
  }
  if (flags['help'] === true) return { command: 'help' };
  const text = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
  const dataDir = resolve(text('data-dir') ?? env.LRS_DATA_DIR ?? '.lore-data');
  const parsed = configSchema.safeParse({
    port: text('port') ?? env.LRS_PORT ?? DEFAULT_PORT,
    host: text('host') ?? env.LRS_HOST ?? '127.0.0.1',
    dataDir,
    publicUrl: text('public-url') ?? env.LRS_PUBLIC_URL ?? undefined,
    adminToken: env.LRS_ADMIN_TOKEN || undefined,
    backups: {
      dir: resolve(text('backup-dir') ?? env.LRS_BACKUP_DIR ?? defaultBackupDir(dataDir)),
      intervalMs: parseBackupInterval(text('backup-interval') ?? env.LRS_BACKUP_INTERVAL ?? '24h'),
      keep: text('backup-keep') ?? env.LRS_BACKUP_KEEP ?? 7,
    },
    trustProxy: listSetting(text('trust-proxy') ?? env.LRS_TRUST_PROXY),
    database: databaseSettings(text('database-url') ?? (env.LRS_DATABASE_URL || undefined), {
      poolSize: text('db-pool-size') ?? env.LRS_DB_POOL_SIZE ?? 10,
      statementTimeout: text('db-statement-timeout') ?? env.LRS_DB_STATEMENT_TIMEOUT ?? '30s',
    }),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration (${issue.path.join('.')}): ${issue.message}`);
  }
  const limits = readServiceLimits(flags, env);
  if (!limits.ok) throw new ConfigError(`Invalid configuration: ${limits.message}`);
  const config = { ...parsed.data, limits: limits.limits };
  return flags['reset-admin-token'] === true ? { command: 'reset-admin-token', config } : { command: 'serve', config };
}

function listSetting(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

function databaseSettings(url: string | undefined, settings: { poolSize: string | number; statementTimeout: string }) {
  if (url === undefined) return undefined;
  return { url, poolSize: settings.poolSize, statementTimeoutMs: parseDuration(settings.statementTimeout, 'dbStatementTimeout') };
}

/** `backups` beside the data directory: on the same disk, but outside the directory a repair or restore rewrites. */
export function defaultBackupDir(dataDir: string): string {
  return join(dirname(dataDir), 'backups');
}

/** The configuration to serve with (for callers that only ever serve: the desktop app's service process, tests). */
export function readConfig(argv: string[], env: NodeJS.ProcessEnv): ServiceConfig {
  const line = readCommandLine(argv, env);
  if (line.command === 'help') throw new ConfigError('--help asks for no service to start.');
  return line.config;
}

/** `--help`: every flag with its variable and default, from the same lists the parser reads. */
export function helpText(): string {
  const rows: Array<[string, string, string, string]> = [
    ...SERVICE_SETTINGS.map((setting): [string, string, string, string] => [setting.flag ? `--${setting.flag}` : '', setting.env, setting.default, setting.help]),
    ...LIMIT_SETTINGS.map((setting): [string, string, string, string] => [`--${setting.flag}`, setting.env, String(LIMIT_DEFAULTS[setting.key]), setting.help]),
  ];
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: readonly string[]) => `  ${row.slice(0, 3).map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}  ${row[3]}`;
  return [
    'Lore LRS: an xAPI Learning Record Store.',
    '',
    'Usage: npm run serve -- [flags]     (or: node src-server/service/main.ts [flags])',
    '',
    'Every setting is a flag and an environment variable; a flag wins.',
    '',
    line(['flag', 'variable', 'default', '']),
    ...rows.map(line),
    '',
    'Commands:',
    '  --reset-admin-token  print a new admin token for --data-dir and stop; the old one no longer works',
    '                       (the service must be stopped; LRS_ADMIN_TOKEN, when set, wins over it)',
    '  -h, --help           this text',
  ].join('\n');
}
