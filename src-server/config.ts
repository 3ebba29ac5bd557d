/**
 * Service configuration from flags and environment variables; a flag wins over its variable.
 *
 *   --port / LRS_PORT            default 8411; 0 picks a free port
 *   --host / LRS_HOST            default 127.0.0.1 (loopback only unless told otherwise)
 *   --data-dir / LRS_DATA_DIR    default ./.lore-data
 *   --public-url / LRS_PUBLIC_URL  the base URL content uses, when behind a proxy
 *   LRS_ADMIN_TOKEN              the admin token (otherwise generated on first start)
 *   --max-body-bytes, --max-batch, --rate-limit, ... / LRS_MAX_BODY_BYTES, ...: the limits of
 *                                src-server/limits.ts (LIMIT_SETTINGS), defaults there
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { LIMIT_FLAG_OPTIONS, LIMIT_SETTINGS, readServiceLimits, type ServiceLimits } from './limits';

export const DEFAULT_PORT = 8411;

const configSchema = z.object({
  port: z.coerce.number().int().min(0, 'port must be 0 to 65535').max(65535, 'port must be 0 to 65535'),
  host: z.string().min(1),
  dataDir: z.string().min(1),
  publicUrl: z.url().optional(),
  adminToken: z.string().min(16, 'LRS_ADMIN_TOKEN must have at least 16 characters').optional(),
});
/** `limits` is absent in configs built by hand (tests, the desktop app): the defaults apply. */
export type ServiceConfig = z.infer<typeof configSchema> & { limits?: ServiceLimits };

export class ConfigError extends Error {}

export function readConfig(argv: string[], env: NodeJS.ProcessEnv): ServiceConfig {
  let flags;
  try {
    flags = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        'public-url': { type: 'string' },
        ...LIMIT_FLAG_OPTIONS,
      },
      strict: true,
    }).values;
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}. Flags: --port, --host, --data-dir, --public-url, ${LIMIT_SETTINGS.map((setting) => `--${setting.flag}`).join(', ')}.`);
  }
  const parsed = configSchema.safeParse({
    port: flags.port ?? env.LRS_PORT ?? DEFAULT_PORT,
    host: flags.host ?? env.LRS_HOST ?? '127.0.0.1',
    dataDir: resolve(flags['data-dir'] ?? env.LRS_DATA_DIR ?? '.lore-data'),
    publicUrl: flags['public-url'] ?? env.LRS_PUBLIC_URL ?? undefined,
    adminToken: env.LRS_ADMIN_TOKEN || undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration (${issue.path.join('.')}): ${issue.message}`);
  }
  const limits = readServiceLimits(flags, env);
  if (!limits.ok) throw new ConfigError(`Invalid configuration: ${limits.message}`);
  return { ...parsed.data, limits: limits.limits };
}
