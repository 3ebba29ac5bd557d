/**
 * The HTTP plugins declare what they need (fastify-plugin: the plugins before them, the request
 * decorators they read), so a registration in the wrong order fails when the app starts instead
 * of answering requests without a check.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { bodyContentLimitsPlugin } from '../../src-server/http/plugins/body-content-limits';
import { jsonBodyLimitsPlugin } from '../../src-server/http/plugins/json-body-limits';
import { keyRateLimitPlugin } from '../../src-server/http/plugins/key-rate-limit';
import { TokenBuckets } from '../../src-server/http/plugins/rate-limit';
import { refusalLogPlugin } from '../../src-server/http/plugins/refusal-log';
import { stoppingPlugin } from '../../src-server/http/plugins/stopping';
import { xapiContextPlugin } from '../../src-server/http/plugins/xapi-context';
import { LIMIT_DEFAULTS } from '../../src-server/limits/service-limits';
import type { Storage } from '../../src-server/storage/storage';

// Never called: the apps below fail before they serve a request.
const storage = {} as Storage;
const limits = { storage, limits: LIMIT_DEFAULTS, buckets: new TokenBuckets() };

describe('plugins registered out of order', () => {
  it('fail at start, naming what is missing (a plugin before them, a request decorator)', async () => {
    const cases = [
      { register: (app: ReturnType<typeof Fastify>) => app.register(keyRateLimitPlugin, limits), missing: /lrsKey|lore-xapi-context/ },
      {
        register: (app: ReturnType<typeof Fastify>) => app.register(xapiContextPlugin, { storage, publicRoutes: [], publicUrl: () => '' }).register(bodyContentLimitsPlugin, limits),
        missing: /lore-json-body-limits|lrsBodyScan/,
      },
      { register: (app: ReturnType<typeof Fastify>) => app.register(stoppingPlugin), missing: /lore-cors/ },
      { register: (app: ReturnType<typeof Fastify>) => app.register(refusalLogPlugin, { storage, recorder: null as never }), missing: /lore-error-handling/ },
    ];
    for (const { register, missing } of cases) {
      const app = Fastify();
      void register(app);
      await expect(app.ready()).rejects.toThrow(missing);
      await app.close().catch(() => {});
    }
  });

  it('start in the order they declare', async () => {
    const app = Fastify();
    await app.register(xapiContextPlugin, { storage, publicRoutes: [], publicUrl: () => '' });
    await app.register(jsonBodyLimitsPlugin, limits);
    await app.register(keyRateLimitPlugin, limits);
    await app.register(bodyContentLimitsPlugin, limits);
    await expect(app.ready()).resolves.toBeDefined();
    await app.close();
  });
});
