/**
 * The admin API's contract: request and response schemas for /admin/api, shared by the service,
 * the desktop main process and the renderer. Types are inferred from these schemas, never
 * written twice. Keep this module free of Node imports: the renderer bundles it.
 */
import { z } from 'zod';
import { storeLimitsPatchSchema, storeLimitsSchema } from '../limits/service-limits';
import { storeRetentionPatchSchema, storeRetentionSchema } from '../limits/store-retention';
import { packageUnitSchema } from '../bench/package-description';
import { referenceOutcomeSchema } from '../bench/reference-outcome';
import { WAIVER_REASONS } from '../bench/cmi5-vocabulary';

/** Path segments the service serves at its root: a Store cannot take them as its slug. */
const RESERVED_SLUGS = [
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

const environmentSchema = z.enum(['test', 'live']);
export type Environment = z.infer<typeof environmentSchema>;

const isoTime = z.iso.datetime({ offset: true });

const storeSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  environment: environmentSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  /** xAPI endpoint of this Store, for content to point at. */
  endpoint: z.string(),
  /** The limits this Store sets itself (src-server/limits/service-limits.ts); the service's apply to the rest. */
  limits: storeLimitsSchema.optional(),
  /** How long the Store keeps statements and its logs (limits/store-retention.ts); null days: as the service does. */
  retention: storeRetentionSchema.optional(),
});
export type StoreView = z.infer<typeof storeSchema>;

export const createStoreSchema = z.strictObject({
  slug: slugSchema,
  name: z.string().trim().min(1, 'a name is required').max(200),
  environment: environmentSchema.default('test'),
});
export type CreateStoreInput = z.infer<typeof createStoreSchema>;

export const updateStoreSchema = z.strictObject({
  name: z.string().trim().min(1, 'a name is required').max(200).optional(),
  /** A number sets a limit for this Store, null returns it to the service's; `"limits": null` clears them all. */
  limits: storeLimitsPatchSchema.nullable().optional(),
  /** Days per kind; a field given replaces the Store's, null returns it to the default (statements: forever). */
  retention: storeRetentionPatchSchema.optional(),
});
export type UpdateStoreInput = z.infer<typeof updateStoreSchema>;

// Forgetting a learner (docs/erasure-and-retention.md): POST with the learner's Agent(s), a dry run
// first; GET lists the ledger. The agents are checked by the xAPI rules in admin/erasures.ts.
const agentObjectSchema = z.record(z.string(), z.unknown());
export const erasureInputSchema = z.strictObject({
  /** One Agent or Identified Group, or a list of them: every IFI of the person. */
  agent: z.union([agentObjectSchema, z.array(agentObjectSchema).min(1, 'give at least one Agent')]).optional(),
  /** The same as a list under another name; both may be given. */
  agents: z.array(agentObjectSchema).min(1, 'give at least one Agent').optional(),
  /** Count what would go, erase nothing. */
  dryRun: z.boolean().default(false),
});
export type ErasureInput = z.input<typeof erasureInputSchema>;
const erasureCountsSchema = z.object({
  statements: z.number().int(),
  attachments: z.number().int(),
  rejections: z.number().int(),
  refusals: z.number().int(),
  stateDocuments: z.number().int(),
  agentProfileDocuments: z.number().int(),
  receivedCopies: z.number().int(),
  testBenchRecords: z.number().int(),
});
export type ErasureCountsView = z.infer<typeof erasureCountsSchema>;
const erasureEntrySchema = z.object({
  id: z.string(),
  storeId: z.string(),
  at: z.string(),
  counts: erasureCountsSchema,
  /** Random per erasure; each IFI is kept only as SHA-256(salt + canonical IFI). */
  salt: z.string(),
  ifiHashes: z.array(z.string()),
});
const erasureOutcomeSchema = z.object({ dryRun: z.boolean(), counts: erasureCountsSchema, erasure: erasureEntrySchema.nullable() });
export type ErasureOutcomeView = z.infer<typeof erasureOutcomeSchema>;

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
const scopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof scopeSchema>;

const apiKeySchema = z.object({
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
const createdApiKeySchema = apiKeySchema.extend({
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

const rotatedApiKeySchema = z.object({ replacement: createdApiKeySchema, previous: apiKeySchema });

const validationStatusSchema = z.enum(['accepted', 'voided', 'rejected']);

/** Longest text a filter of the Explorer takes: an IRI or agent JSON fits, a pasted statement does not. */
const FILTER_MAX = 2048;
const filterText = (what: string) => z.string().trim().min(1, `${what} is empty`).max(FILTER_MAX, `${what} is at most ${FILTER_MAX} characters`);

/**
 * The Statement Explorer's search. `agent`, `verb` and `activity` take what people type
 * (admin/explorer-filters.ts): an exact identifier, or words of a name, which match every learner,
 * verb or Activity of the Store whose name has them at the start of its words, in order.
 */
export const explorerQuerySchema = z.strictObject({
  /** A learner: xAPI agent JSON, `ada@example.com` (mailto: optional), or their name or account name, or part of it. */
  agent: filterText('agent').optional(),
  /** An Activity's IRI, or words of its name (`Module 4`). */
  activity: filterText('activity').optional(),
  /** A verb's IRI, or a word of its display (`completed`). */
  verb: filterText('verb').optional(),
  /** One attempt: the statements of this registration (context.registration). */
  registration: z.uuid('registration must be a UUID').transform((value) => value.toLowerCase()).optional(),
  /** `true`: only statements accepted with warnings. */
  warned: z.enum(['true', 'false'], 'warned must be true or false').transform((value) => value === 'true').optional(),
  status: validationStatusSchema.optional(),
  since: isoTime.optional(),
  until: isoTime.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  /** Opaque cursor from a previous page's `next`. */
  cursor: z.string().regex(/^\d+$/, 'a cursor is the `next` value of a previous page').optional(),
});
export type ExplorerQueryInput = z.infer<typeof explorerQuerySchema>;

const explorerRecordSchema = z.object({
  seq: z.number(),
  status: validationStatusSchema,
  statementId: z.string().nullable(),
  receivedAt: z.string(),
  keyId: z.string(),
  /** The statement as the client sent it (rejected ones too). */
  statement: z.unknown(),
  /** Accepted and voided statements: the statement as stored (id, stored, authority, version, timestamp set). */
  stored: z.record(z.string(), z.unknown()).optional(),
  /** Accepted and voided statements: what xAPI advises against that the statement does (accepted with warnings). */
  warnings: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  error: z
    .object({
      code: z.string(),
      message: z.string(),
      field: z.string().optional(),
      statementIndex: z.number().optional(),
    })
    .nullable(),
});

const explorerPageSchema = z.object({
  records: z.array(explorerRecordSchema),
  next: z.string().nullable(),
});
export type ExplorerPageView = z.infer<typeof explorerPageSchema>;

/**
 * An export of what an Explorer filter shows (admin/statement-export.ts): the filters of the search,
 * without its page. `ndjson`: the statements as stored, one a line; `csv`: one readable row per
 * record, rejected ones included.
 */
export const exportQuerySchema = explorerQuerySchema.omit({ limit: true, cursor: true }).extend({
  format: z.enum(['ndjson', 'csv'], 'format is "ndjson" or "csv"'),
});

/**
 * The admin actions the audit log keeps (admin/audit-log.ts, docs/audit.md): those of the admin
 * routes (http/plugins/audit-trail.ts) and those other modules record themselves.
 */
export const AUDIT_ACTIONS = [
  'store.create',
  'store.update',
  'store.empty',
  'store.delete',
  'store.testStatement',
  'key.create',
  'key.rotate',
  'key.revoke',
  'package.import',
  'package.delete',
  'statements.export',
  'statements.import',
  'learner.erase',
  'forwarder.create',
  'forwarder.update',
  'forwarder.delete',
  'forwarder.redeliver',
  'backup.download',
  'backup.restore',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const auditOutcomeSchema = z.enum(['succeeded', 'failed']);

/** GET /admin/api/audit: newest first, paged by cursor. */
export const auditQuerySchema = z.strictObject({
  /** Only the entries of this Store (its slug, kept after the Store is deleted). */
  store: z.string().trim().min(1, 'store is empty').max(200, 'store is at most 200 characters').optional(),
  /** Only this action (`store.create`, `key.rotate`…). */
  action: z.string().trim().regex(/^[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/, 'action is like "store.create"').optional(),
  /** Only entries at or after this time. */
  since: isoTime.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  /** Opaque cursor from a previous page's `next`. */
  cursor: z.string().regex(/^\d+$/, 'a cursor is the `next` value of a previous page').optional(),
});
export type AuditQueryInput = z.infer<typeof auditQuerySchema>;

const auditEntrySchema = z.object({
  id: z.number().int(),
  at: z.string(),
  action: z.string(),
  outcome: auditOutcomeSchema,
  /** The Store's slug, when the action was on one. */
  store: z.string().nullable(),
  /** What in the Store it was on (a key's id, a file name). Never a secret. */
  target: z.string().nullable(),
  /** Who: `admin token` (an HTTP client), `desktop app`, or `command line` (a restore). */
  actor: z.string(),
  /** The remote address of an HTTP client, the OS user of the desktop app. */
  actorDetail: z.string().nullable(),
  /** A failed action's error code. */
  errorCode: z.string().nullable(),
  /** What else the action said (a new name, an export's format and count). */
  detail: z.record(z.string(), z.unknown()).nullable(),
});
export type AuditEntryView = z.infer<typeof auditEntrySchema>;

const auditPageSchema = z.object({ entries: z.array(auditEntrySchema), next: z.string().nullable() });
export type AuditPageView = z.infer<typeof auditPageSchema>;

/**
 * The header the desktop app's requests carry (`desktop; user=<OS user>`): the audit log then says
 * "desktop app" rather than "admin token". Any holder of the token could send it: it names the
 * client, it proves nothing.
 */
export const ADMIN_CLIENT_HEADER = 'x-lore-admin-client';

const EXPLORER_FIELDS = ['agent', 'verb', 'activity'] as const;

/** What the Explorer's autocompletes ask: suggestions for one filter from what is typed so far. */
export const explorerSuggestQuerySchema = z.strictObject({
  /** The filter: learners (agent), verbs or Activities. */
  field: z.enum(EXPLORER_FIELDS, { error: 'field is one of "agent", "verb", "activity"' }),
  /** What is typed so far: words of a name, or the start of an email address or IRI. */
  prefix: z.string().trim().min(1, 'type at least one letter').max(200, 'at most 200 characters'),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});
export type ExplorerSuggestQueryInput = z.infer<typeof explorerSuggestQuerySchema>;

const explorerSuggestionsSchema = z.object({
  /** Those whose name begins with the words typed first, then by name. */
  suggestions: z.array(
    z.object({
      /** What the filter takes: the email address (mailto:) or agent JSON of a learner, the IRI of a verb or Activity. */
      value: z.string(),
      /** The name: a learner's, a verb's display, an Activity's. */
      label: z.string(),
      /** What tells two of the same name apart: the learner's email address or account, the IRI. */
      detail: z.string(),
    }),
  ),
});
export type ExplorerSuggestionsView = z.infer<typeof explorerSuggestionsSchema>;

/**
 * The scheduled backups (admin/backup-schedule.ts): where they go, how often, how many are kept,
 * the last one written, when the next is due, and the failure that is being retried, if any.
 */
const backupScheduleSchema = z.object({
  dir: z.string(),
  intervalMs: z.number(),
  keep: z.number(),
  /** A backup is being written now. */
  running: z.boolean(),
  /** The newest backup in the folder; `statements` is known for those this run of the service wrote. */
  last: z.object({ at: z.string(), file: z.string(), bytes: z.number(), statements: z.number().nullable() }).nullable(),
  /** When the next backup (or the retry of a failed one) starts; null when stopped. */
  next: z.string().nullable(),
  /** The last attempt failed: when, why, and how many attempts in a row failed. */
  failure: z.object({ at: z.string(), message: z.string(), attempts: z.number() }).nullable(),
});
export type BackupScheduleView = z.infer<typeof backupScheduleSchema>;

export const serviceStatusSchema = z.object({
  version: z.string(),
  startedAt: z.string(),
  stores: z.number(),
  statements: z.number(),
  rejections: z.number(),
  databaseBytes: z.number(),
  // Where the service runs, for the Connection screen. Optional: a service embedded in a test or
  // another host may not know them.
  /** The URL it listens on, e.g. http://127.0.0.1:8411 */
  listenUrl: z.string().optional(),
  /** The listen address (--host), e.g. 127.0.0.1 or 0.0.0.0. */
  host: z.string().optional(),
  port: z.number().optional(),
  dataDir: z.string().optional(),
  /** The base URL content uses (Store endpoints start with it). */
  publicUrl: z.string().optional(),
  /**
   * How full the database is against the most it can hold (the embedded one: 3 GiB). `warning`
   * from 80%; `full` from 95%: statements, rejections and documents are refused with 507.
   */
  capacity: z
    .object({ usedBytes: z.number(), limitBytes: z.number(), state: z.enum(['ok', 'warning', 'full']) })
    .optional(),
  /** Damage the database found in itself while running (answered 503 storage_damaged), or null. */
  damage: z.string().nullable().optional(),
  /** The scheduled backups; absent when the service keeps none (a storage without backup files). */
  backups: backupScheduleSchema.optional(),
  /** Live-event streams open now (a browser's console tabs share one). */
  liveStreams: z.number().int().optional(),
});
export type ServiceStatusView = z.infer<typeof serviceStatusSchema>;

export const errorBodySchema = z.object({
  error: z.object({
    status: z.number(),
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    statementIndex: z.number().optional(),
  }),
});

/** A Store as the Stores screen lists it: with its counts and last activity. */
export const storeSummarySchema = storeSchema.extend({
  statementCount: z.number(),
  rejectedCount: z.number(),
  lastActivityAt: z.string().nullable(),
});
export type StoreSummaryView = z.infer<typeof storeSummarySchema>;

export const ingestionQuerySchema = z.strictObject({
  /** One Store, or every Store when absent. */
  store: z.string().optional(),
  bucket: z.enum(['minute', 'hour', 'day']).default('hour'),
  since: isoTime.optional(),
  until: isoTime.optional(),
});
export type IngestionQueryInput = z.infer<typeof ingestionQuerySchema>;

export const ingestionReportSchema = z.object({
  bucket: z.enum(['minute', 'hour', 'day']),
  since: z.string(),
  until: z.string(),
  series: z.array(z.object({ start: z.string(), accepted: z.number(), rejected: z.number() })),
  totals: z.object({ accepted: z.number(), voided: z.number(), rejected: z.number() }),
  /** `name`: the verb's display or the Activity's name (en-US or en first), null when the statements gave none. */
  topVerbs: z.array(z.object({ id: z.string(), count: z.number(), name: z.string().nullable() })),
  topActivities: z.array(z.object({ id: z.string(), count: z.number(), name: z.string().nullable() })),
});
export type IngestionReportView = z.infer<typeof ingestionReportSchema>;

/** One live event of `/admin/api/events` (server-sent events, `event: statement`). */
export const liveEventSchema = z.object({
  store: z.string(),
  seq: z.number(),
  status: validationStatusSchema,
  statementId: z.string().nullable(),
  receivedAt: z.string(),
});
export type LiveEventView = z.infer<typeof liveEventSchema>;

/**
 * `event: change` of /admin/api/events: a Store's statements changed (accepted, voided or
 * rejected), up to `toSeq`, `count` of them since the Store's previous message (null when the
 * stream resumed from Last-Event-ID and did not count them). Coalesced: a few a second per Store
 * under any load. The console asks again for what it shows of that Store.
 */
export const storeChangeSchema = z.object({
  store: z.string(),
  toSeq: z.number().int(),
  count: z.number().int().nullable(),
});
export type StoreChangeView = z.infer<typeof storeChangeSchema>;

/**
 * One refused request (GET /admin/api/stores/:slug/refusals, GET /admin/api/refusals): a request
 * answered 4xx/5xx before any statement of it reached the rejected-statement log. Identical
 * refusals in quick succession are one entry with a `count`. Never holds a secret.
 */
const refusalSchema = z.object({
  id: z.number(),
  /** When it (the first of `count`) was refused. */
  at: z.string(),
  lastAt: z.string(),
  count: z.number(),
  method: z.string(),
  /** Path and query string; credentials a query carried are removed. */
  path: z.string(),
  status: z.number(),
  code: z.string(),
  /** The message of the error answer, in plain words. */
  reason: z.string(),
  keyId: z.string().nullable(),
  /** The client's address. */
  client: z.string(),
  userAgent: z.string().nullable(),
});
export type RefusalView = z.infer<typeof refusalSchema>;

export const refusalsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  /** Opaque cursor from a previous page's `next`. */
  cursor: z.string().regex(/^\d+$/, 'a cursor is the `next` value of a previous page').optional(),
});

const refusalPageSchema = z.object({ refusals: z.array(refusalSchema), next: z.string().nullable() });
export type RefusalPageView = z.infer<typeof refusalPageSchema>;

/**
 * A live event of `/admin/api/events` for a refused request (`event: refusal`): `store` is the
 * slug of the Store whose log holds it, null for the service-wide log.
 */
export const refusalEventSchema = z.object({
  store: z.string().nullable(),
  id: z.number(),
  status: z.number(),
  code: z.string(),
  at: z.string(),
});
export type RefusalEventView = z.infer<typeof refusalEventSchema>;

/** Query of `/admin/api/events`: one Store's events, or every Store's. */
export const liveEventsQuerySchema = z.strictObject({
  store: z.string().optional(),
  /** `statements`: an `event: statement` per statement too (for tools; the console needs only `change`). */
  detail: z.enum(['statements']).optional(),
});

/** Path of the live event stream below /admin/api (in adminRawOperations: it is a stream). */
const LIVE_EVENTS_PATH = '/events';

/**
 * POST here for a backup: the answer is the whole database as an SQLite file (a download,
 * `application/vnd.sqlite3`), taken from a consistent point. In adminRawOperations: not JSON.
 */
export const BACKUPS_PATH = '/backups';

/** The OpenAPI description of this API, below /admin/api (admin/openapi.ts); no token needed. */
export const OPENAPI_PATH = '/openapi.json';

// The Test Bench (src-server/bench/): packages, launches and attempts of a test Store.

const packageViewSchema = z.object({
  id: z.string(),
  kind: z.enum(['tincan', 'cmi5']),
  title: z.string(),
  units: z.array(packageUnitSchema),
  files: z.number().int(),
  bytes: z.number().int(),
  createdAt: isoTime,
  /** The outcome marked as expected of it; every attempt is judged against it. */
  reference: referenceOutcomeSchema.nullable(),
});
export type PackageView = z.infer<typeof packageViewSchema>;

export const launchInputSchema = z.strictObject({
  learner: z.strictObject({
    name: z.string().trim().min(1, 'the learner needs a name').max(200),
    mbox: z
      .string()
      .trim()
      .transform((mbox) => (mbox.toLowerCase().startsWith('mailto:') ? mbox : `mailto:${mbox}`))
      .pipe(z.string().regex(/^mailto:[^@\s]+@[^@\s]+$/, 'the learner\'s mbox is an email address')),
  }),
  /** cmi5: the AU's id in cmi5.xml; default the first AU. */
  unit: z.string().min(1).optional(),
  launchMode: z.enum(['Normal', 'Browse', 'Review']).optional(),
});

const launchViewSchema = z.object({ url: z.string(), registration: z.string(), launchId: z.string() });

export { WAIVER_REASONS };

/** An administrator waiving an AU of a cmi5 attempt (the LMS records `waived`). */
export const waiverInputSchema = z.strictObject({
  /** The AU's id in cmi5.xml. */
  unit: z.string().min(1, 'name the AU to waive (its id in cmi5.xml)'),
  reason: z.enum(WAIVER_REASONS, { error: `the reason is one of ${WAIVER_REASONS.map((r) => `"${r}"`).join(', ')}` }),
});
export type WaiverInput = z.infer<typeof waiverInputSchema>;


const attemptOutcomeSchema = z.object({
  completion: z.boolean().nullable(),
  success: z.boolean().nullable(),
  score: z.object({ scaled: z.number().optional(), raw: z.number().optional(), min: z.number().optional(), max: z.number().optional() }).nullable(),
  duration: z.string().nullable(),
});

const violationSchema = z.object({
  statementId: z.string().nullable(),
  rule: z.string(),
  severity: z.enum(['error', 'warning']),
  message: z.string(),
});

const attemptViewSchema = z.object({
  registration: z.string(),
  packageId: z.string(),
  actor: z.record(z.string(), z.unknown()),
  launches: z.array(
    z.object({
      id: z.string(),
      unitId: z.string(),
      sessionId: z.string().nullable(),
      launchMode: z.string().nullable(),
      createdAt: isoTime,
      fetchedAt: isoTime.nullable(),
      keyId: z.string().nullable(),
    }),
  ),
  statements: z.array(
    z.object({ id: z.string(), stored: isoTime, keyId: z.string(), byLms: z.boolean(), voided: z.boolean(), statement: z.record(z.string(), z.unknown()) }),
  ),
  documents: z.array(
    z.object({ stateId: z.string(), activityId: z.string(), updated: isoTime, etag: z.string(), contentType: z.string(), content: z.unknown() }),
  ),
  outcome: attemptOutcomeSchema,
  units: z.array(z.object({ unitId: z.string(), outcome: attemptOutcomeSchema, waived: z.boolean() })),
  violations: z.array(violationSchema),
  /** What the package calls its Activities, by the ids statements use. */
  activityTitles: z.record(z.string(), z.string()),
  reference: referenceOutcomeSchema.nullable(),
  documentWrites: z.array(
    z.object({
      id: z.number().int(),
      at: isoTime,
      activityId: z.string(),
      stateId: z.string(),
      method: z.enum(['PUT', 'POST', 'DELETE']),
      status: z.number().int(),
      etagBefore: z.string().nullable(),
      etagAfter: z.string().nullable(),
      keyId: z.string(),
      /** What the write changed, member by member; null when its content is not JSON or text kept. */
      changes: z.array(z.object({ path: z.string(), before: z.unknown(), after: z.unknown() })).nullable(),
    }),
  ),
  /** This attempt against the reference; null without one. */
  verdict: z
    .object({
      met: z.boolean(),
      criteria: z.array(z.object({ criterion: z.enum(['completion', 'success', 'minScore']), expected: z.string(), actual: z.string(), met: z.boolean() })),
    })
    .nullable(),
});
export type AttemptView = z.infer<typeof attemptViewSchema>;

const attemptSummarySchema = z.object({
  registration: z.string(),
  packageId: z.string(),
  title: z.string(),
  actor: z.record(z.string(), z.unknown()),
  launches: z.number().int(),
  lastLaunchedAt: isoTime,
});

/**
 * An import of statements into a Store (docs/import.md): pulled from another LRS (`lrs`) or read
 * from an NDJSON file (`ndjson`). Never holds the source's secret.
 */
const importJobSchema = z.object({
  id: z.string(),
  storeId: z.string(),
  kind: z.enum(['lrs', 'ndjson']),
  /** running: under way; paused: the service stopped, it continues at the next start; failed; finished. */
  state: z.enum(['running', 'paused', 'failed', 'finished']),
  endpoint: z.string().nullable(),
  key: z.string().nullable(),
  since: z.string().nullable(),
  fileName: z.string().nullable(),
  more: z.string().nullable(),
  reached: z.object({ stored: z.string(), statementId: z.string() }).nullable(),
  counts: z.object({
    read: z.number().int(),
    imported: z.number().int(),
    alreadyPresent: z.number().int(),
    voided: z.number().int(),
    invalid: z.number().int(),
    conflicts: z.number().int(),
  }),
  /** The first problems met (at most 100), in order; the counts say how many in all. */
  problems: z.array(
    z.object({ kind: z.enum(['invalid', 'conflict']), line: z.number().int().optional(), statementId: z.string().optional(), message: z.string() }),
  ),
  error: z.string().nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
  finishedAt: isoTime.nullable(),
});
export type ImportJobView = z.infer<typeof importJobSchema>;

/** POST /admin/api/stores/:slug/imports as JSON: a pull from another LRS. (An NDJSON body is a file: see docs/import.md.) */
export const startImportSchema = z.strictObject({
  kind: z.literal('lrs'),
  /** The source's xAPI endpoint, e.g. https://lrs.example.com/xapi/ */
  endpoint: z
    .url({ protocol: /^https?$/, error: 'the endpoint is an http(s) URL, e.g. https://lrs.example.com/xapi/' })
    // The job shows its endpoint: credentials in it would be shown too.
    .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), 'give the key and secret in their own fields, not in the endpoint URL'),
  key: z.string().min(1, 'the key is required'),
  secret: z.string().min(1, 'the secret is required'),
  /** Only statements stored after this time. */
  since: isoTime.optional(),
});

const slugParam = z.object({ slug: z.string() });

// Forwarding (docs/forwarding.md): a Store's statements sent on to another LRS or a webhook.

const httpUrlSchema = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), 'an http:// or https:// URL')
  // Credentials go in their own fields, which the API never shows again; a URL is shown.
  .refine((value) => !URL.canParse(value) || (new URL(value).username === '' && new URL(value).password === ''), 'a URL without credentials in it');

const forwarderFilterSchema = z.strictObject({
  /** Only statements with this verb (IRI). */
  verb: z.string().trim().min(1).max(2000).optional(),
  /** Only statements whose object is this Activity (IRI). */
  activity: z.string().trim().min(1).max(2000).optional(),
  /** accepted: statements not voided when sent; voided: only voided ones. */
  status: z.enum(['accepted', 'voided']).optional(),
});

/**
 * A new forwarder. webhook: `secret` signs each batch (Lore-Signature); xapi: `url` is the other
 * LRS's endpoint, `username` and `password` its Basic credentials. `from`: `now` (default) sends
 * what arrives from now on; `beginning` every statement the Store holds too.
 */
export const createForwarderSchema = z
  .strictObject({
    kind: z.enum(['webhook', 'xapi']),
    url: httpUrlSchema,
    secret: z.string().min(16, 'a secret of at least 16 characters').max(500).optional(),
    username: z.string().min(1, 'a user name is required').max(500).optional(),
    password: z.string().min(1, 'a password is required').max(500).optional(),
    filter: forwarderFilterSchema.optional(),
    from: z.enum(['now', 'beginning']).default('now'),
  })
  .superRefine((input, ctx) => {
    const need = (field: 'secret' | 'username' | 'password', why: string) => {
      if (input[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: why });
    };
    const refuse = (field: 'secret' | 'username' | 'password') => {
      if (input[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `not used by a ${input.kind} forwarder` });
    };
    if (input.kind === 'webhook') {
      need('secret', 'a webhook needs a secret to sign with');
      refuse('username');
      refuse('password');
    } else {
      need('username', 'the other LRS needs a user name (its key)');
      need('password', 'the other LRS needs a password (its secret)');
      refuse('secret');
    }
  });
export type CreateForwarderInput = z.infer<typeof createForwarderSchema>;

export const updateForwarderSchema = z.strictObject({ paused: z.boolean() });

const forwarderErrorSchema = z.object({ status: z.number().nullable(), message: z.string(), at: z.string() });

/** A forwarder as the API shows it: never its secret or password. */
const forwarderSchema = z.object({
  id: z.string(),
  kind: z.enum(['webhook', 'xapi']),
  url: z.string(),
  username: z.string().nullable(),
  filter: forwarderFilterSchema.nullable(),
  paused: z.boolean(),
  createdAt: z.string(),
  /** Every statement up to this seq was delivered (or filtered out, or dead-lettered). */
  deliveredThrough: z.object({ seq: z.number(), stored: z.string().nullable() }),
  /** When the destination last acknowledged a batch. */
  deliveredAt: z.string().nullable(),
  /** Statements stored after the cursor (before the filter), plus those of dead letters queued again. */
  pending: z.number(),
  lastError: forwarderErrorSchema.nullable(),
  /** Set while a batch fails: when it first failed, and when it is tried next. */
  failingSince: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  deadLetters: z.number(),
});
export type ForwarderView = z.infer<typeof forwarderSchema>;

const deadLetterSchema = z.object({
  id: z.number(),
  fromSeq: z.number(),
  throughSeq: z.number(),
  statementIds: z.array(z.string()),
  error: forwarderErrorSchema,
  at: z.string(),
  /** Queued for redelivery. */
  queued: z.boolean(),
});
export type DeadLetterView = z.infer<typeof deadLetterSchema>;

/** Queue dead letters again: these ids, or every one without `ids`. */
export const redeliverSchema = z.strictObject({ ids: z.array(z.number().int().positive()).max(1000).optional() });

const forwarderParams = z.object({ slug: z.string(), id: z.string() });
const keyParams = z.object({ slug: z.string(), id: z.string() });
const empty = z.object({});

/**
 * Every admin API operation, typed once: its HTTP method, its path (`:name` segments are filled
 * from the input) and its input and output schemas. The HTTP transport of the console and the
 * desktop main process's forwarder both build requests from this table, so an operation's name,
 * path and types are written in one place.
 */
export const adminOperations = {
  'status.get': { method: 'GET', path: '/status', input: empty, output: serviceStatusSchema },
  'stores.list': { method: 'GET', path: '/stores', input: empty, output: z.object({ stores: z.array(storeSummarySchema) }) },
  'stores.create': { method: 'POST', path: '/stores', input: createStoreSchema, output: storeSchema },
  'stores.get': { method: 'GET', path: '/stores/:slug', input: slugParam, output: storeSchema },
  'stores.rename': { method: 'PATCH', path: '/stores/:slug', input: slugParam.extend(updateStoreSchema.shape), output: storeSchema },
  'stores.delete': { method: 'DELETE', path: '/stores/:slug', input: slugParam.extend({ confirm: z.string().optional() }), output: z.void() },
  'stores.empty': { method: 'POST', path: '/stores/:slug/empty', input: slugParam.extend({ confirm: z.string().optional() }), output: z.void() },
  'stores.sendTestStatement': {
    method: 'POST',
    path: '/stores/:slug/test-statement',
    input: slugParam,
    output: z.object({ statementId: z.string() }),
  },
  'apiKeys.list': { method: 'GET', path: '/stores/:slug/keys', input: slugParam, output: z.object({ keys: z.array(apiKeySchema) }) },
  'apiKeys.create': { method: 'POST', path: '/stores/:slug/keys', input: slugParam.extend(createApiKeySchema.shape), output: createdApiKeySchema },
  'apiKeys.rotate': { method: 'POST', path: '/stores/:slug/keys/:id/rotate', input: keyParams.extend(rotateApiKeySchema.shape), output: rotatedApiKeySchema },
  'apiKeys.get': { method: 'GET', path: '/stores/:slug/keys/:id', input: keyParams, output: apiKeySchema },
  'apiKeys.revoke': { method: 'DELETE', path: '/stores/:slug/keys/:id', input: keyParams, output: apiKeySchema },
  'statements.search': { method: 'GET', path: '/stores/:slug/statements', input: slugParam.extend(explorerQuerySchema.shape), output: explorerPageSchema },
  'statements.suggest': {
    method: 'GET',
    path: '/stores/:slug/suggestions',
    input: slugParam.extend(explorerSuggestQuerySchema.shape),
    output: explorerSuggestionsSchema,
  },
  'refusals.store': { method: 'GET', path: '/stores/:slug/refusals', input: slugParam.extend(refusalsQuerySchema.shape), output: refusalPageSchema },
  'refusals.service': { method: 'GET', path: '/refusals', input: refusalsQuerySchema, output: refusalPageSchema },
  'erasures.create': { method: 'POST', path: '/stores/:slug/erasures', input: slugParam.extend(erasureInputSchema.shape), output: erasureOutcomeSchema },
  'erasures.list': { method: 'GET', path: '/stores/:slug/erasures', input: slugParam, output: z.object({ erasures: z.array(erasureEntrySchema) }) },
  'imports.list': { method: 'GET', path: '/stores/:slug/imports', input: slugParam, output: z.object({ imports: z.array(importJobSchema) }) },
  'imports.start': { method: 'POST', path: '/stores/:slug/imports', input: slugParam.extend(startImportSchema.shape), output: importJobSchema },
  'imports.get': { method: 'GET', path: '/stores/:slug/imports/:id', input: keyParams, output: importJobSchema },
  'audit.list': { method: 'GET', path: '/audit', input: auditQuerySchema, output: auditPageSchema },
  'metrics.ingestion': { method: 'GET', path: '/metrics/ingestion', input: ingestionQuerySchema, output: ingestionReportSchema },
  'packages.list': { method: 'GET', path: '/stores/:slug/packages', input: slugParam, output: z.object({ packages: z.array(packageViewSchema) }) },
  'packages.delete': { method: 'DELETE', path: '/stores/:slug/packages/:id', input: keyParams, output: z.void() },
  'packages.launch': { method: 'POST', path: '/stores/:slug/packages/:id/launches', input: keyParams.extend(launchInputSchema.shape), output: launchViewSchema },
  'packages.setReference': {
    method: 'POST',
    path: '/stores/:slug/packages/:id/reference',
    input: keyParams.extend(referenceOutcomeSchema.shape),
    output: packageViewSchema,
  },
  'packages.clearReference': { method: 'DELETE', path: '/stores/:slug/packages/:id/reference', input: keyParams, output: packageViewSchema },
  'attempts.list': { method: 'GET', path: '/stores/:slug/attempts', input: slugParam, output: z.object({ attempts: z.array(attemptSummarySchema) }) },
  'attempts.get': { method: 'GET', path: '/stores/:slug/attempts/:registration', input: z.object({ slug: z.string(), registration: z.string() }), output: attemptViewSchema },
  'attempts.waive': {
    method: 'POST',
    path: '/stores/:slug/attempts/:registration/waivers',
    input: z.object({ slug: z.string(), registration: z.string() }).extend(waiverInputSchema.shape),
    output: z.object({ statementId: z.string(), sessionId: z.string() }),
  },
  'forwarders.list': { method: 'GET', path: '/stores/:slug/forwarders', input: slugParam, output: z.object({ forwarders: z.array(forwarderSchema) }) },
  'forwarders.create': { method: 'POST', path: '/stores/:slug/forwarders', input: slugParam.extend(createForwarderSchema.shape), output: forwarderSchema },
  'forwarders.get': { method: 'GET', path: '/stores/:slug/forwarders/:id', input: forwarderParams, output: forwarderSchema },
  'forwarders.update': { method: 'PATCH', path: '/stores/:slug/forwarders/:id', input: forwarderParams.extend(updateForwarderSchema.shape), output: forwarderSchema },
  'forwarders.delete': { method: 'DELETE', path: '/stores/:slug/forwarders/:id', input: forwarderParams, output: z.void() },
  'forwarders.deadLetters': {
    method: 'GET',
    path: '/stores/:slug/forwarders/:id/dead-letters',
    input: forwarderParams,
    output: z.object({ deadLetters: z.array(deadLetterSchema) }),
  },
  'forwarders.redeliver': {
    method: 'POST',
    path: '/stores/:slug/forwarders/:id/redeliver',
    input: forwarderParams.extend(redeliverSchema.shape),
    output: z.object({ queued: z.number() }),
  },
} as const satisfies Record<string, { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; input: z.ZodType; output: z.ZodType }>;

/**
 * The admin routes whose answer is not a JSON value the console's typed client reads: the live
 * event stream, the backup download and this API's own description. Typed here like
 * `adminOperations`, with the media type they answer in, so the OpenAPI description comes from the
 * contract alone; kept apart so `buildAdminRequest` and the desktop forwarder never send them.
 * `schema: null`: a file, described only by its media type.
 */
export const adminRawOperations = {
  'events.stream': {
    method: 'GET',
    path: LIVE_EVENTS_PATH,
    input: liveEventsQuerySchema,
    output: {
      mediaType: 'text/event-stream',
      schema: z.union([
        storeChangeSchema.meta({ title: 'event: change' }),
        liveEventSchema.meta({ title: 'event: statement (with detail=statements)' }),
        refusalEventSchema.meta({ title: 'event: refusal' }),
      ]),
    },
    needsAdminToken: true,
  },
  'backups.download': {
    method: 'POST',
    path: BACKUPS_PATH,
    input: empty,
    output: { mediaType: 'application/vnd.sqlite3', schema: null },
    needsAdminToken: true,
  },
  'packages.import': {
    method: 'POST',
    path: '/stores/:slug/packages',
    input: slugParam,
    body: 'application/zip',
    output: { mediaType: 'application/json', schema: packageViewSchema },
    needsAdminToken: true,
  },
  'attempts.report': {
    method: 'GET',
    path: '/stores/:slug/attempts/:registration/report',
    input: z.object({ slug: z.string(), registration: z.string(), format: z.enum(['html', 'json']).default('html') }),
    output: { mediaType: 'text/html', schema: null },
    needsAdminToken: true,
  },
  'statements.export': {
    method: 'GET',
    path: '/stores/:slug/export',
    input: slugParam.extend(exportQuerySchema.shape),
    output: { mediaType: 'application/x-ndjson', schema: null },
    needsAdminToken: true,
  },
  'openapi.get': {
    method: 'GET',
    path: OPENAPI_PATH,
    input: empty,
    output: { mediaType: 'application/json', schema: z.record(z.string(), z.unknown()) },
    // The description holds no data: tools read it without credentials.
    needsAdminToken: false,
  },
} as const satisfies Record<
  string,
  {
    method: 'GET' | 'POST';
    path: string;
    input: z.ZodType;
    /** The media type of a body that is not JSON (a file). */
    body?: string;
    output: { mediaType: string; schema: z.ZodType | null };
    needsAdminToken: boolean;
  }
>;
export type AdminRawOperationName = keyof typeof adminRawOperations;

type AdminOperations = typeof adminOperations;
export type AdminOperationName = keyof AdminOperations;
export type AdminInput<N extends AdminOperationName> = z.input<AdminOperations[N]['input']>;
export type AdminOutput<N extends AdminOperationName> = z.output<AdminOperations[N]['output']>;

export interface AdminRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below /admin/api, with path parameters filled in and the query string appended. */
  path: string;
  /** JSON body, for methods that carry one. */
  body?: Record<string, unknown>;
}

/** Turns an operation and its input into the HTTP request that performs it. */
export function buildAdminRequest<N extends AdminOperationName>(name: N, input: AdminInput<N>): AdminRequest {
  const operation = adminOperations[name];
  const rest: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  const path = operation.path.replace(/:([a-zA-Z]+)/g, (_match, param: string) => {
    const value = rest[param];
    delete rest[param];
    return encodeURIComponent(String(value));
  });
  const defined = Object.entries(rest).filter(([, value]) => value !== undefined && value !== null);
  if (operation.method === 'GET' || operation.method === 'DELETE') {
    const query = new URLSearchParams(defined.map(([key, value]): [string, string] => [key, String(value)])).toString();
    return { method: operation.method, path: query ? `${path}?${query}` : path };
  }
  return { method: operation.method, path, body: Object.fromEntries(defined) };
}
