import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src-server/service/config';
import { LIMIT_DEFAULTS, applyStoreLimitsPatch, effectiveLimits, readServiceLimits, rejectedRetentionFor } from '../src-server/limits/service-limits';

describe('service limits from flags and environment variables', () => {
  it('are the documented defaults when nothing is set', () => {
    expect(readConfig([], {}).limits).toEqual(LIMIT_DEFAULTS);
    expect(LIMIT_DEFAULTS).toMatchObject({ maxBodyBytes: 20 * 1024 * 1024, maxBatch: 1000, ratePerSecond: 200, rateBurst: 2000 });
  });

  it('read every variable, and a flag wins over its variable', () => {
    const config = readConfig(['--max-batch', '50', '--rate-limit', '0'], {
      LRS_MAX_BATCH: '10',
      LRS_MAX_BODY_BYTES: '1048576',
      LRS_RATE_BURST: '5',
      LRS_MAX_ATTACHMENT_BYTES: '1024',
      LRS_MAX_JSON_DEPTH: '32',
      LRS_MAX_STRING_LENGTH: '4096',
      LRS_REJECTED_RETENTION_COUNT: '100',
      LRS_REJECTED_RETENTION_DAYS: '7',
    });
    expect(config.limits).toEqual({
      maxBodyBytes: 1048576,
      maxBatch: 50,
      ratePerSecond: 0,
      rateBurst: 5,
      maxAttachmentBytes: 1024,
      maxJsonDepth: 32,
      maxStringLength: 4096,
      rejectedRetentionCount: 100,
      rejectedRetentionDays: 7,
    });
  });

  it.each([
    [['--max-batch', '0'], {}, /--max-batch \/ LRS_MAX_BATCH must be 1 to 100000, got "0"/],
    [[], { LRS_MAX_BODY_BYTES: '20MB' }, /--max-body-bytes \/ LRS_MAX_BODY_BYTES must be a whole number, got "20MB"/],
    [[], { LRS_MAX_BODY_BYTES: String(200 * 1024 * 1024) }, /LRS_MAX_BODY_BYTES must be 65536 to 104857600/],
    [['--rate-limit=-1'], {}, /--rate-limit \/ LRS_RATE_LIMIT must be a whole number/],
  ])('refuse %j %j naming the flag and the variable', (argv, env, message) => {
    expect(() => readConfig(argv, env)).toThrow(ConfigError);
    expect(() => readConfig(argv, env)).toThrow(message);
  });

  it('ignore an empty variable', () => {
    expect(readServiceLimits({}, { LRS_MAX_BATCH: '' })).toEqual({ ok: true, limits: LIMIT_DEFAULTS });
  });
});

describe('a Store’s overrides', () => {
  it('replace the service values they set, and only those', () => {
    expect(effectiveLimits(LIMIT_DEFAULTS, { maxBatch: 10, ratePerSecond: 5 })).toEqual({ ...LIMIT_DEFAULTS, maxBatch: 10, ratePerSecond: 5 });
    expect(effectiveLimits(LIMIT_DEFAULTS, null)).toEqual(LIMIT_DEFAULTS);
  });

  it('are changed by a patch: a number sets, null returns to the service value, a null patch clears all', () => {
    expect(applyStoreLimitsPatch({ maxBatch: 10, rateBurst: 3 }, { maxBatch: null, maxBodyBytes: 2048 })).toEqual({ rateBurst: 3, maxBodyBytes: 2048 });
    expect(applyStoreLimitsPatch({ maxBatch: 10 }, null)).toEqual({});
    expect(applyStoreLimitsPatch(undefined, {})).toEqual({});
  });
});

describe('rejected-log retention of a Store', () => {
  it("takes the Store's own count and age where it sets them, the service's otherwise", () => {
    expect(rejectedRetentionFor(LIMIT_DEFAULTS, undefined)).toEqual({
      maxPerStore: LIMIT_DEFAULTS.rejectedRetentionCount,
      maxAgeDays: LIMIT_DEFAULTS.rejectedRetentionDays,
    });
    expect(rejectedRetentionFor(LIMIT_DEFAULTS, { rejectedRetentionCount: 50 })).toEqual({
      maxPerStore: 50,
      maxAgeDays: LIMIT_DEFAULTS.rejectedRetentionDays,
    });
  });
});
