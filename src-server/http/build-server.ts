/**
 * Builds the Fastify app without listening, so tests use `app.inject` and main.ts only boots it.
 *
 *   /<slug>/xAPI/...   xAPI for one Store ("xapi" in any case)
 *   /xapi/...          the earlier address: the Store is the key's
 *   /admin/api/...     the admin API (admin token)
 *   /health            liveness, no credentials
 */
import { tmpdir } from 'node:os';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AdminTokenCheck } from '../admin/admin-token';
import { LiveEventBus } from '../admin/live-events';
import { StoredClock } from '../lrs/stored-clock';
import type { RecordedStatementListener } from '../lrs/statement-writes';
import type { Storage } from '../storage/storage';
import { adminAuthPlugin } from './plugins/admin-auth';
import { errorHandlingPlugin } from './plugins/error-handler';
import { xapiContextPlugin } from './plugins/xapi-context';
import { alternateRequestSyntaxPlugin, routeAlternateSyntax } from './plugins/alternate-request-syntax';
import { corsPlugin } from './plugins/cors';
import apiKeyRoutes from './routes/admin/api-keys';
import explorerRoutes from './routes/admin/statements';
import statusRoutes from './routes/admin/status';
import storeRoutes from './routes/admin/stores';
import backupRoutes from './routes/admin/backups';
// The admin console's service side: Host/Origin guard, store actions, metrics, live events, OpenAPI, web console.
import consoleRoutes from './console-static';
import { adminGuardPlugin } from './plugins/admin-guard';
import eventRoutes from './routes/admin/events';
import metricsRoutes from './routes/admin/metrics';
import openApiRoutes from './routes/admin/openapi';
import storeActionRoutes from './routes/admin/store-actions';
import type { ServiceInfo } from './routes/admin/status';
import aboutRoutes from './routes/xapi/about';
import activityRoutes from './routes/xapi/activities';
import agentRoutes from './routes/xapi/agents';
import statementRoutes from './routes/xapi/statements';
import activityProfileRoutes from './routes/xapi/activity-profile';
import agentProfileRoutes from './routes/xapi/agent-profile';
import stateRoutes from './routes/xapi/state';
// Request-side limits (body, batch, depth, strings, attachments, rate per key) and auth backoff.
import { LIMIT_DEFAULTS, type ServiceLimits } from '../limits/service-limits';
import { AuthBackoff } from './plugins/auth-backoff';
import { bodyContentLimitsPlugin } from './plugins/body-content-limits';
import { bodySizeLimitPlugin } from './plugins/body-size-limit';
import { failedCredentialsPlugin, presentedXapiCredentials } from './plugins/failed-credentials';
import { jsonBodyLimitsPlugin } from './plugins/json-body-limits';
import { keyRateLimitPlugin } from './plugins/key-rate-limit';
import { TokenBuckets } from './plugins/rate-limit';
import { normaliseRequestUrl } from './xapi-path';
import { publicUrlOf } from './request-origin';
import { stoppingPlugin } from './plugins/stopping';
import type { BackupScheduleView } from '../admin/contract';
// Refused requests leave a trace: a log per Store and one for the service (refusal-log.ts).
import { RefusalRecorder } from '../admin/refusal-recorder';
import { refusalLogPlugin } from './plugins/refusal-log';
import refusalRoutes from './routes/admin/refusals';
import erasureRoutes from './routes/admin/erasures';
// The Test Bench: packages launched against test Stores, and the LMS side of their launches.
import type { BenchContext } from '../bench/bench-context';
import { AttemptDocumentLog } from '../bench/document-writes';
import { LmsReactions } from '../bench/lms-reactions';
import benchRoutes from './routes/admin/bench';
// Data out and governance: the audit log of admin actions, exports.
import { AuditLog } from '../admin/audit-log';
import { auditTrailPlugin } from './plugins/audit-trail';
import auditRoutes from './routes/admin/audit';
import exportRoutes from './routes/admin/export';
import benchContentRoutes from './routes/bench-content';
// Forwarding: the Store's statements sent on to another LRS or a webhook (docs/forwarding.md).
import type { ForwardingWorker } from '../admin/forwarding-worker';
import forwarderRoutes from './routes/admin/forwarders';
// Imports of statements from another LRS or an NDJSON file (admin/import-jobs.ts).
import { ImportJobs } from '../admin/import-jobs';
import importRoutes from './routes/admin/imports';

export interface ServerOptions {
  storage: Storage;
  adminToken: AdminTokenCheck;
  /**
   * The service's own base URL: --public-url, else the address it listens on. A function: with
   * `--port 0` it is known only once the server listens. What the service records names it
   * (statement authorities, the Test Bench learner's account); answers do too, unless
   * `followRequestOrigin`.
   */
  publicUrl: () => string;
  /**
   * Without --public-url: the URLs of each answer (Store endpoints, launch URLs, errors, OpenAPI)
   * start with the origin its request came to, so a service reached from another machine hands out
   * addresses that work there (request-origin.ts). Default false: `publicUrl` everywhere.
   */
  followRequestOrigin?: boolean;
  bodyLimitBytes?: number;
  /** Service-wide limits (src-server/limits/service-limits.ts); default LIMIT_DEFAULTS. A Store's overrides apply on top. */
  limits?: ServiceLimits;
  /** Where the service runs (listen URL, host, port, data directory), for /admin/api/status and the Host guard. */
  serviceInfo?: () => ServiceInfo;
  /** The scheduled backups' state for the status screen (admin/backup-schedule.ts); none when absent. */
  backups?: () => BackupScheduleView | undefined;
  /**
   * Where a downloaded backup is written before it is sent (admin/backups.ts): the scheduled
   * backups' folder; default the system's temp folder (services built by hand, tests).
   */
  backupDir?: string;
  /** The built web console (default: found next to the service code, see console-static.ts). */
  rendererDir?: string;
  /** Heartbeat interval of /admin/api/events (default 15 s); tests shorten it. */
  eventHeartbeatMs?: number;
  logger?: FastifyServerOptions['logger'];
  /**
   * The proxies whose X-Forwarded-* headers are believed (--trust-proxy): addresses or CIDRs; the
   * client address is then the one they forward (refusal log, failed-login back-off), and without
   * --public-url the URLs in answers use the scheme and host they forward. Default: none.
   */
  trustProxy?: string[];
  /** The service's live events; default: a bus of its own (tests pass one to watch it). */
  events?: LiveEventBus;
  /**
   * The service's forwarding worker (admin/forwarding-worker.ts), started and stopped by the
   * service: told what is recorded and what admins change. Absent: forwarders are kept, not delivered.
   */
  forwarding?: ForwardingWorker;
  /**
   * The service's imports (admin/import-jobs.ts), created, started and stopped by the service
   * (service.ts). Absent (an app built by hand, tests): the app makes its own, started when the app
   * is ready and stopped when it closes.
   */
  imports?: ImportJobs;
  /** The audit log, shared with the service's imports; default: the app's own. */
  audit?: AuditLog;
  /** For the app's own imports (without `imports`): statements per page asked of a source; tests ask for small pages. */
  importPageSize?: number;
}

/** Default request body limit: far above any real statement batch, far below memory trouble. */
const DEFAULT_BODY_LIMIT_BYTES = 20 * 1024 * 1024;

export function buildServer(options: ServerOptions): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimitBytes ?? options.limits?.maxBodyBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    rewriteUrl: (request) => routeAlternateSyntax(request, normaliseRequestUrl(request.url ?? '/')),
    // Statement ids and parameters are case-sensitive, but routes are matched on the rewritten URL.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Answered by the stopping plugin instead, so that the 503 carries the CORS headers too.
    return503OnClosing: false,
    ...(options.trustProxy?.length ? { trustProxy: options.trustProxy } : {}),
  });
  // Each concern is a plugin that names the plugins and request decorators it needs: Fastify checks
  // the order at registration. First CORS: every later refusal, the not-found answer included,
  // then carries its headers.
  void app.register(corsPlugin);
  void app.register(stoppingPlugin);
  // The base of the URLs in an answer; `options.publicUrl` stays the base of what is recorded.
  const publicUrl = publicUrlOf(options.publicUrl, options.followRequestOrigin ?? false);
  void app.register(errorHandlingPlugin, { publicUrl });
  void app.register(alternateRequestSyntaxPlugin);
  // The service's live events, for the console's streams (one bus per service: admin/live-events.ts).
  const events = options.events ?? new LiveEventBus(options.storage);
  app.addHook('onClose', async () => events.dispose());
  const refusals = new RefusalRecorder(options.storage, events, { log: (message) => app.log.warn(message) });
  void app.register(refusalLogPlugin, { storage: options.storage, recorder: refusals });
  // The last refusals are written before the service closes its storage.
  app.addHook('onClose', async () => refusals.flush());

  const clock = new StoredClock();
  // Other processes on the same database learn from the storage how far this one's writes reach.
  options.storage.useStampFloor?.(() => clock.floorMs());
  const benchBase = { storage: options.storage, clock, identityUrl: options.publicUrl, log: (message: string) => app.log.warn(message) };
  // Every statement recorded, whoever records it, is heard by the console's live events and by
  // forwarding (it wakes the Store's forwarders).
  const heard = {
    announceStatements: (...args: Parameters<RecordedStatementListener['announceStatements']>) => {
      events.announceStatements(...args);
      options.forwarding?.announceStatements(args[0]);
    },
    announceRejections: (...args: Parameters<LiveEventBus['announceRejections']>) => events.announceRejections(...args),
  };
  // What the LRS records is heard by those and by the Test Bench's LMS (moveOn). The LMS's
  // reactions (satisfied) are not heard by the LMS again; what the Test Bench records on request
  // (launched, a waiver) is, so a waiver is followed by what it satisfies.
  const lms = new LmsReactions({ ...benchBase, events: heard });
  app.addHook('onClose', async () => lms.settled());
  const recorded = {
    announceStatements: (...args: Parameters<RecordedStatementListener['announceStatements']>) => {
      heard.announceStatements(...args);
      lms.announceStatements(...args);
    },
    announceRejections: heard.announceRejections,
  };
  const bench: BenchContext = { ...benchBase, events: recorded };
  const documentLog = new AttemptDocumentLog(bench);
  app.addHook('onClose', async () => documentLog.settled());
  // The audit log (admin/audit-log.ts): its entries are written before the storage closes.
  const audit = options.audit ?? new AuditLog(options.storage, { log: (message) => app.log.warn(message) });
  const imports = options.imports ?? ownImports(options, events, audit, app);
  const stopAuditPruning = audit.schedulePruning();
  app.addHook('onClose', async () => {
    stopAuditPruning();
    await audit.settled();
  });
  const startedAt = new Date().toISOString();
  const adminDeps = { storage: options.storage, publicUrl };
  const limits = { storage: options.storage, limits: options.limits ?? LIMIT_DEFAULTS, buckets: new TokenBuckets() };
  const authBackoff = new AuthBackoff();

  // When each limit is checked, and why there: the body's size in preParsing, before a byte is
  // buffered; JSON depth and string length in the JSON parser, before JSON.parse; the rate per key
  // and what the body holds (batch, attachments, document depth) in preHandler, once the key and
  // its Store are known. Admin routes have no rate limit.
  const xapi = async (scope: FastifyInstance) => {
    await scope.register(xapiContextPlugin, { storage: options.storage, publicRoutes: ['/about'], publicUrl });
    await scope.register(bodySizeLimitPlugin, limits);
    await scope.register(jsonBodyLimitsPlugin, limits);
    await scope.register(keyRateLimitPlugin, limits);
    await scope.register(bodyContentLimitsPlugin, limits);
    await scope.register(failedCredentialsPlugin, { backoff: authBackoff, identity: presentedXapiCredentials, verified: (request) => Boolean(request.lrsKey) });
    await scope.register(aboutRoutes);
    await scope.register(statementRoutes, { storage: options.storage, clock, publicUrl, identityUrl: options.publicUrl, events: recorded });
    await scope.register(stateRoutes, { storage: options.storage, clock, written: documentLog });
    await scope.register(activityProfileRoutes, { storage: options.storage, clock });
    await scope.register(agentProfileRoutes, { storage: options.storage, clock });
    await scope.register(activityRoutes, { storage: options.storage });
    await scope.register(agentRoutes);
  };
  app.register(xapi, { prefix: '/:slug/xapi' });
  app.register(xapi, { prefix: '/xapi' });

  // Before the admin token is checked: refuses other sites' pages (DNS rebinding, CSRF); see admin-guard.ts.
  void app.register(adminGuardPlugin, { policy: () => ({ bindHost: options.serviceInfo?.().host, publicUrl: options.publicUrl() }) });
  app.register(openApiRoutes, { prefix: '/admin/api', publicUrl });
  app.register(consoleRoutes, { rendererDir: options.rendererDir });
  app.register(benchContentRoutes, { bench });

  app.register(
    async (admin) => {
      await admin.register(failedCredentialsPlugin, {
        backoff: authBackoff,
        identity: (request) => (request.headers.authorization === undefined ? null : 'admin'),
        verified: (_request, reply) => reply.statusCode < 300,
      });
      await admin.register(adminAuthPlugin, { adminToken: options.adminToken });
      await admin.register(auditTrailPlugin, { audit, prefix: '/admin/api' });
      await admin.register(statusRoutes, { ...adminDeps, startedAt, serviceInfo: options.serviceInfo, backups: options.backups, liveStreams: () => events.streams });
      await admin.register(storeActionRoutes, { ...adminDeps, identityUrl: options.publicUrl, clock, events: heard });
      await admin.register(metricsRoutes, adminDeps);
      await admin.register(eventRoutes, { ...adminDeps, events, heartbeatMs: options.eventHeartbeatMs });
      await admin.register(storeRoutes, adminDeps);
      await admin.register(apiKeyRoutes, adminDeps);
      await admin.register(explorerRoutes, adminDeps);
      await admin.register(backupRoutes, { ...adminDeps, dir: options.backupDir ?? tmpdir() }); // POST /backups: a download of the database
      await admin.register(refusalRoutes, { ...adminDeps, recorder: refusals });
      await admin.register(erasureRoutes, { ...adminDeps, recorder: refusals }); // forgetting a learner; its audit-log hook: admin/erasures.ts
      await admin.register(benchRoutes, { bench, publicUrl });
      await admin.register(forwarderRoutes, { storage: options.storage, ...(options.forwarding ? { forwarding: options.forwarding } : {}) });
      await admin.register(importRoutes, { ...adminDeps, imports });
      await admin.register(auditRoutes, { audit });
      await admin.register(exportRoutes, adminDeps);
    },
    { prefix: '/admin/api' },
  );

  app.get('/health', async () => ({ status: 'ok' }));
  return app;
}

/** Imports for an app built without a service around it: started with the app, stopped before it closes its storage. */
function ownImports(options: ServerOptions, events: LiveEventBus, audit: AuditLog, app: FastifyInstance): ImportJobs {
  const imports = new ImportJobs({ storage: options.storage, events, audit, publicUrl: options.publicUrl, log: (message) => app.log.info(message), pageSize: options.importPageSize });
  app.addHook('onReady', async () => imports.start());
  app.addHook('preClose', async () => imports.stop());
  return imports;
}
