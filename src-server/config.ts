/**
 * Service configuration from flags and environment variables; a flag wins over its variable.
 *
 *   --port / LRS_PORT            default 8411; 0 picks a free port
 *   --host / LRS_HOST            default 127.0.0.1 (loopback only unless told otherwise)
 *   --data-dir / LRS_DATA_DIR    default ./.lore-data
 *   --public-url / LRS_PUBLIC_URL  the base URL content uses, when behind a proxy
 *   LRS_ADMIN_TOKEN              the admin token (otherwise generated on first start)
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';

export const DEFAULT_PORT = 8411;

const configSchema = z.object({
  port: z.coerce.number().int().min(0, 'port must be 0 to 65535').max(65535, 'port must be 0 to 65535'),
  host: z.string().min(1),
  dataDir: z.string().min(1),
  publicUrl: z.url().optional(),
  adminToken: z.string().min(16, 'LRS_ADMIN_TOKEN must have at least 16 characters').optional(),
});
export type ServiceConfig = z.infer<typeof configSchema>;

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
      },
      strict: true,
    }).values;
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}. Flags: --port, --host, --data-dir, --public-url.`);
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
  return parsed.data;
}
