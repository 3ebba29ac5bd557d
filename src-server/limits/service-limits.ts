/**
 * The limits model: what one request, one key and one Store may ask of the service (docs/design.md,
 * "Limits"). Service-wide values come from flags and environment variables (config.ts); a Store
 * may override the tenant-facing ones (admin API, `PATCH /admin/api/stores/:slug {"limits": …}`).
 *
 * Defaults are chosen so that ADL's conformance suites and a class of 200 learners never meet
 * them, while one runaway client cannot take the service down:
 * - body 20 MiB: a batch of 1,000 ordinary statements is ~1 MB; attachments ride in the body.
 * - batch 1,000 statements: authoring tools send one statement or small batches; both ADL suites
 *   pass 100% with every default here (measured).
 * - 200 requests/s per key, burst 2,000: content usually shares one key per course. 200 learners
 *   launching together send ~10 requests each (state, profile, "launched"/"initialized") = one
 *   burst of ~2,000; afterwards each learner averages far below 1 request/s. A retry loop in
 *   content is held at ~2% of what the service can take (~10k requests/s, docs/design.md "Limits").
 *   ADL's suites send 1,634 (1.0.3) and 1,757 (2.0.0) xAPI requests in a whole run, at most 236
 *   in one second here: the burst alone covers a run on any machine. (At 100/s with bursts of
 *   200, 227 of the 1.0.3 suite's tests failed with 429.)
 * - attachment 10 MiB each: certificates, screenshots, short recordings; the in-memory database
 *   holds every attachment, so one attachment stays well under 1% of a 1–2 GB budget.
 * - JSON depth 100: a statement reaches extension values at depth ~9; values under an extension
 *   may nest 64 deep (xapi/json-value.ts). Recursive consumers (JSON.stringify) overflow near 10k.
 * - string 1 MiB (characters): long essay responses are tens of KB.
 * - rejected log: 10,000 per Store and 30 days; enough to debug any content, bounded in memory.
 *
 * Hard bounds keep every configured value sane: a body must fit a journal record (256 MiB, with
 * attachments carried as base64, 4/3 larger), so bodies and attachments stop at 100 MiB.
 *
 * No Node imports: the admin contract (bundled by the renderer) imports the Store override schema.
 */
import { z } from 'zod';

const MiB = 1024 * 1024;

/** The largest body any setting may allow (a statement batch is one journal record of ≤ 256 MiB). */
export const MAX_BODY_BYTES_CEILING = 100 * MiB;
/**
 * The smallest body limit any setting may set: every request up to this size is within every
 * Store's limit, so the HTTP layer need not look the Store up for it (almost every request).
 */
export const MIN_BODY_BYTES_LIMIT = 64 * 1024;

export const LIMIT_DEFAULTS = {
  maxBodyBytes: 20 * MiB,
  maxBatch: 1000,
  ratePerSecond: 200,
  rateBurst: 2000,
  maxAttachmentBytes: 10 * MiB,
  maxJsonDepth: 100,
  maxStringLength: MiB,
  rejectedRetentionCount: 10_000,
  rejectedRetentionDays: 30,
} as const;

const int = (min: number, max: number) =>
  z.number().int(`must be a whole number from ${min} to ${max}`).min(min, `must be ${min} to ${max}`).max(max, `must be ${min} to ${max}`);

/** Each limit's allowed range, for the service settings and the Store overrides alike. */
const limitFields = {
  maxBodyBytes: int(MIN_BODY_BYTES_LIMIT, MAX_BODY_BYTES_CEILING),
  maxBatch: int(1, 100_000),
  /** 0 turns the rate limit off. */
  ratePerSecond: int(0, 1_000_000),
  rateBurst: int(1, 10_000_000),
  maxAttachmentBytes: int(1, MAX_BODY_BYTES_CEILING),
  maxJsonDepth: int(8, 1000),
  maxStringLength: int(256, MAX_BODY_BYTES_CEILING),
  rejectedRetentionCount: int(1, 100_000_000),
  rejectedRetentionDays: int(1, 36_500),
};

/** The resolved service-wide limits (every value set), as buildServer and startService take them. */
export type ServiceLimits = { [Name in keyof typeof limitFields]: z.infer<(typeof limitFields)[Name]> };

/** The limits a Store may override; JSON depth and string length protect the process, not a tenant. */
const STORE_LIMIT_KEYS = [
  'maxBodyBytes',
  'maxBatch',
  'ratePerSecond',
  'rateBurst',
  'maxAttachmentBytes',
  'rejectedRetentionCount',
  'rejectedRetentionDays',
] as const;

/** A Store's overrides as stored and shown: only the limits it sets. */
export const storeLimitsSchema = z.strictObject({
  maxBodyBytes: limitFields.maxBodyBytes.optional(),
  maxBatch: limitFields.maxBatch.optional(),
  ratePerSecond: limitFields.ratePerSecond.optional(),
  rateBurst: limitFields.rateBurst.optional(),
  maxAttachmentBytes: limitFields.maxAttachmentBytes.optional(),
  rejectedRetentionCount: limitFields.rejectedRetentionCount.optional(),
  rejectedRetentionDays: limitFields.rejectedRetentionDays.optional(),
});
export type StoreLimits = z.infer<typeof storeLimitsSchema>;

/** A change to a Store's overrides: a number sets a limit, null returns it to the service default. */
export const storeLimitsPatchSchema = z.strictObject({
  maxBodyBytes: limitFields.maxBodyBytes.nullable().optional(),
  maxBatch: limitFields.maxBatch.nullable().optional(),
  ratePerSecond: limitFields.ratePerSecond.nullable().optional(),
  rateBurst: limitFields.rateBurst.nullable().optional(),
  maxAttachmentBytes: limitFields.maxAttachmentBytes.nullable().optional(),
  rejectedRetentionCount: limitFields.rejectedRetentionCount.nullable().optional(),
  rejectedRetentionDays: limitFields.rejectedRetentionDays.nullable().optional(),
});
export type StoreLimitsPatch = z.infer<typeof storeLimitsPatchSchema>;

/** The overrides after a patch; `null` for the whole patch clears every override. */
export function applyStoreLimitsPatch(current: StoreLimits | null | undefined, patch: StoreLimitsPatch | null): StoreLimits {
  if (patch === null) return {};
  const next: Record<string, number> = { ...current };
  for (const key of STORE_LIMIT_KEYS) {
    const value = patch[key];
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next as StoreLimits;
}

/** The limits that apply to one Store: the service's, with the Store's overrides on top. */
export function effectiveLimits(service: ServiceLimits, store: StoreLimits | null | undefined): ServiceLimits {
  if (!store) return service;
  const effective: ServiceLimits = { ...service };
  for (const key of STORE_LIMIT_KEYS) {
    const value = store[key];
    if (value !== undefined) effective[key] = value;
  }
  return effective;
}

/** How many rejections, and for how long, one Store keeps in its rejected log. */
export function rejectedRetentionFor(service: ServiceLimits, store: StoreLimits | null | undefined): { maxPerStore: number; maxAgeDays: number } {
  const own = effectiveLimits(service, store);
  return { maxPerStore: own.rejectedRetentionCount, maxAgeDays: own.rejectedRetentionDays };
}

/** Each limit's flag and environment variable (config.ts reads them; a flag wins). */
export const LIMIT_SETTINGS = [
  { key: 'maxBodyBytes', flag: 'max-body-bytes', env: 'LRS_MAX_BODY_BYTES', help: 'largest request body, in bytes' },
  { key: 'maxBatch', flag: 'max-batch', env: 'LRS_MAX_BATCH', help: 'most statements in one request' },
  { key: 'ratePerSecond', flag: 'rate-limit', env: 'LRS_RATE_LIMIT', help: 'requests per second per API key (0: no limit)' },
  { key: 'rateBurst', flag: 'rate-burst', env: 'LRS_RATE_BURST', help: 'requests an API key may send at once above its rate' },
  { key: 'maxAttachmentBytes', flag: 'max-attachment-bytes', env: 'LRS_MAX_ATTACHMENT_BYTES', help: 'largest attachment, in bytes' },
  { key: 'maxJsonDepth', flag: 'max-json-depth', env: 'LRS_MAX_JSON_DEPTH', help: 'deepest JSON nesting of a body' },
  { key: 'maxStringLength', flag: 'max-string-length', env: 'LRS_MAX_STRING_LENGTH', help: 'longest JSON string, in characters' },
  { key: 'rejectedRetentionCount', flag: 'rejected-retention-count', env: 'LRS_REJECTED_RETENTION_COUNT', help: 'rejected statements kept per Store' },
  { key: 'rejectedRetentionDays', flag: 'rejected-retention-days', env: 'LRS_REJECTED_RETENTION_DAYS', help: 'days rejected statements are kept' },
] as const satisfies ReadonlyArray<{ key: keyof ServiceLimits; flag: string; env: string; help: string }>;

export type LimitFlag = (typeof LIMIT_SETTINGS)[number]['flag'];

/** For node:util parseArgs: every limit flag takes a value. */
export const LIMIT_FLAG_OPTIONS = Object.fromEntries(LIMIT_SETTINGS.map((setting) => [setting.flag, { type: 'string' }])) as {
  [F in LimitFlag]: { type: 'string' };
};

/**
 * The service limits from flags and environment variables (a flag wins), or the first fault
 * in words that name the flag and the variable. Sizes are plain integers (bytes, characters).
 */
export function readServiceLimits(
  flags: Partial<Record<LimitFlag, string | boolean | undefined>>,
  env: Record<string, string | undefined>,
): { ok: true; limits: ServiceLimits } | { ok: false; message: string } {
  const limits: Record<string, number> = { ...LIMIT_DEFAULTS };
  for (const setting of LIMIT_SETTINGS) {
    const flag = flags[setting.flag];
    const raw = typeof flag === 'string' ? flag : env[setting.env] || undefined;
    if (raw === undefined) continue;
    const trimmed = raw.trim();
    const value = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
    const checked = limitFields[setting.key].safeParse(value);
    if (!checked.success) {
      const reason = Number.isNaN(value) ? 'must be a whole number' : checked.error.issues[0]!.message;
      return { ok: false, message: `--${setting.flag} / ${setting.env} ${reason}, got ${JSON.stringify(raw)}.` };
    }
    limits[setting.key] = checked.data;
  }
  return { ok: true, limits: limits as ServiceLimits };
}
