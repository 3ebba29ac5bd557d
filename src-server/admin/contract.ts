/**
 * The admin API's contract: request and response schemas for /admin/api, shared by the service,
 * the desktop main process and the renderer. Types are inferred from these schemas, never
 * written twice. Keep this module free of Node imports: the renderer bundles it.
 */
import { z } from 'zod';

/** Path segments the service serves at its root: a Store cannot take them as its slug. */
export const RESERVED_SLUGS = [
  'admin', 'xapi', 'health', 'about', 'api', 'assets', 'static', 'docs', 'openapi', 'events', 'metrics', 'favicon.ico',
] as const;

export const slugSchema = z
  .string()
  .min(2, 'a slug has 2 to 63 characters')
  .max(63, 'a slug has 2 to 63 characters')
  .regex(/^[a-z0-9-]+$/, 'a slug uses only lowercase letters, digits and hyphens')
  .regex(/^[a-z0-9].*[a-z0-9]$/, 'a slug starts and ends with a letter or digit')
  .refine((slug) => !(RESERVED_SLUGS as readonly string[]).includes(slug), {
    message: `this slug is reserved (reserved: ${RESERVED_SLUGS.join(', ')})`,
  });

export const environmentSchema = z.enum(['test', 'live']);
export type Environment = z.infer<typeof environmentSchema>;

const isoTime = z.iso.datetime({ offset: true });

export const storeSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  environment: environmentSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  /** xAPI endpoint of this Store, for content to point at. */
  endpoint: z.string(),
});
export type StoreView = z.infer<typeof storeSchema>;

export const createStoreSchema = z.strictObject({
  slug: slugSchema,
  name: z.string().trim().min(1, 'a name is required').max(200),
  environment: environmentSchema.default('test'),
});
export type CreateStoreInput = z.infer<typeof createStoreSchema>;

export const updateStoreSchema = z.strictObject({
  name: z.string().trim().min(1, 'a name is required').max(200),
});

/** Deleting a live Store needs its slug typed back: `?confirm=<slug>` or `{"confirm": "<slug>"}`. */
export const deleteStoreSchema = z.strictObject({ confirm: z.string().optional() });

export const SCOPES = [
  'statements/write',
  'statements/read',
  'statements/read/mine',
  'state',
  'define',
  'profile',
  'all/read',
  'all',
] as const;
export const scopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof scopeSchema>;

export const apiKeySchema = z.object({
  id: z.string(),
  storeSlug: z.string(),
  name: z.string(),
  scopes: z.array(scopeSchema),
  environment: environmentSchema,
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  replacedBy: z.string().nullable(),
  /** active, expired or revoked, as of the response. */
  state: z.enum(['active', 'expired', 'revoked']),
});
export type ApiKeyView = z.infer<typeof apiKeySchema>;

export const createApiKeySchema = z.strictObject({
  name: z.string().trim().min(1, 'a name is required').max(200),
  scopes: z.array(scopeSchema).min(1, 'at least one scope').default(['all']),
  expiresAt: isoTime.nullable().default(null),
});
export type CreateApiKeyInput = z.infer<typeof createApiKeySchema>;

/** The one response that carries the secret: shown once, never again. */
export const createdApiKeySchema = apiKeySchema.extend({
  secret: z.string(),
  /** Bearer credential: `Authorization: Bearer <token>`. */
  token: z.string(),
  /** Basic credential as authoring tools ask for it: `Authorization: Basic <basic>`. */
  basic: z.string(),
});
export type CreatedApiKeyView = z.infer<typeof createdApiKeySchema>;

export const rotateApiKeySchema = z.strictObject({
  /** When the old key stops working; default: 7 days from now. */
  oldKeyExpiresAt: isoTime.optional(),
  name: z.string().trim().min(1).max(200).optional(),
});

export const rotatedApiKeySchema = z.object({ replacement: createdApiKeySchema, previous: apiKeySchema });

export const validationStatusSchema = z.enum(['accepted', 'voided', 'rejected']);

export const explorerQuerySchema = z.strictObject({
  /** An agent as xAPI JSON, or the shorthands `mailto:ada@example.com` / `ada@example.com`. */
  agent: z.string().optional(),
  activity: z.string().optional(),
  verb: z.string().optional(),
  status: validationStatusSchema.optional(),
  since: isoTime.optional(),
  until: isoTime.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  /** Opaque cursor from a previous page's `next`. */
  cursor: z.string().regex(/^\d+$/, 'a cursor is the `next` value of a previous page').optional(),
});
export type ExplorerQueryInput = z.infer<typeof explorerQuerySchema>;

export const explorerRecordSchema = z.object({
  seq: z.number(),
  status: validationStatusSchema,
  statementId: z.string().nullable(),
  receivedAt: z.string(),
  keyId: z.string(),
  statement: z.unknown(),
  error: z
    .object({
      code: z.string(),
      message: z.string(),
      field: z.string().optional(),
      statementIndex: z.number().optional(),
    })
    .nullable(),
});

export const explorerPageSchema = z.object({
  records: z.array(explorerRecordSchema),
  next: z.string().nullable(),
});
export type ExplorerPageView = z.infer<typeof explorerPageSchema>;

export const serviceStatusSchema = z.object({
  version: z.string(),
  startedAt: z.string(),
  stores: z.number(),
  statements: z.number(),
  rejections: z.number(),
  databaseBytes: z.number(),
});

export const errorBodySchema = z.object({
  error: z.object({
    status: z.number(),
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    statementIndex: z.number().optional(),
  }),
});
