/**
 * Every admin action answered in this scope goes into the audit log (admin/audit-log.ts): which
 * routes are actions, and what of the request and answer their entry keeps, is the table below
 * (docs/audit.md lists it). Reads are not actions, nor a request the admin token refused (401, 403,
 * 429: the refused-request log has those). A refused action is kept with its error code.
 *
 * An answer in one piece is recorded before it is sent, so a read right after it finds the entry;
 * a streamed one (an export, a backup) once it has ended, with what the route says of it
 * (`request.auditDetail`: an export's count, whether it ran to the end).
 *
 * Who: the desktop app marks its requests (ADMIN_CLIENT_HEADER, with its OS user); anything else
 * is the admin token, with the client's address.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ADMIN_CLIENT_HEADER } from '../../admin/contract';
import type { AuditAction } from '../../admin/contract';
import type { AuditActor, AuditLog } from '../../admin/audit-log';

declare module 'fastify' {
  interface FastifyRequest {
    /** What a route adds to its audit entry (an export's format, filters and count). */
    auditDetail: Record<string, unknown> | null;
  }
}

type Json = Record<string, unknown>;

interface Entry {
  action: AuditAction;
  /** The Store's slug: the path's, or the body's when the action creates it. */
  store?: (params: Json, body: Json) => unknown;
  target?: (params: Json, answer: Json) => unknown;
  /** Chosen field by field: never a secret (a key's secret is in create's and rotate's answers). */
  detail?: (body: Json, answer: Json) => Json;
}

const pick = (value: Json, names: string[]): Json => Object.fromEntries(names.filter((name) => value[name] !== undefined).map((name) => [name, value[name]]));
const slugOf = (params: Json) => params.slug;
function originOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The admin routes that are actions, by method and path below /admin/api. */
const ACTIONS: Record<string, Entry> = {
  'POST /stores': { action: 'store.create', store: (_params, body) => body.slug, detail: (body) => pick(body, ['name', 'environment']) },
  'PATCH /stores/:slug': { action: 'store.update', store: slugOf, detail: (body) => pick(body, ['name', 'limits', 'retention']) },
  'POST /stores/:slug/empty': { action: 'store.empty', store: slugOf },
  'DELETE /stores/:slug': { action: 'store.delete', store: slugOf },
  'POST /stores/:slug/test-statement': { action: 'store.testStatement', store: slugOf, target: (_params, answer) => answer.statementId },
  'POST /stores/:slug/keys': {
    action: 'key.create',
    store: slugOf,
    target: (_params, answer) => answer.id,
    detail: (body) => pick(body, ['name', 'scopes', 'expiresAt']),
  },
  'POST /stores/:slug/keys/:id/rotate': {
    action: 'key.rotate',
    store: slugOf,
    target: (params) => params.id,
    detail: (body, answer) => ({ ...pick(body, ['name', 'oldKeyExpiresAt']), ...pick({ replacement: (answer.replacement as Json | undefined)?.id }, ['replacement']) }),
  },
  'DELETE /stores/:slug/keys/:id': { action: 'key.revoke', store: slugOf, target: (params) => params.id },
  'POST /stores/:slug/packages': { action: 'package.import', store: slugOf, target: (_params, answer) => answer.id },
  'DELETE /stores/:slug/packages/:id': { action: 'package.delete', store: slugOf, target: (params) => params.id },
  'GET /stores/:slug/export': { action: 'statements.export', store: slugOf },
  // Its start; the import's end is recorded by the import itself (admin/import-jobs.ts). Never the key or secret.
  'POST /stores/:slug/imports': {
    action: 'statements.import',
    store: slugOf,
    target: (_params, answer) => answer.id,
    detail: (_body, answer) => pick(answer, ['kind', 'endpoint', 'since', 'fileName']),
  },
  // Never the agent given: the route adds the counts and the ledger's salted hashes.
  'POST /stores/:slug/erasures': { action: 'learner.erase', store: slugOf },
  // A destination's origin only: a webhook's path or query may carry a token of the receiver's.
  'POST /stores/:slug/forwarders': {
    action: 'forwarder.create',
    store: slugOf,
    target: (_params, answer) => answer.id,
    detail: (body) => ({ ...pick(body, ['kind', 'filter']), ...pick({ destination: originOf(body.url) }, ['destination']) }),
  },
  'PATCH /stores/:slug/forwarders/:id': { action: 'forwarder.update', store: slugOf, target: (params) => params.id, detail: (body) => pick(body, ['paused']) },
  'DELETE /stores/:slug/forwarders/:id': { action: 'forwarder.delete', store: slugOf, target: (params) => params.id },
  'POST /stores/:slug/forwarders/:id/redeliver': { action: 'forwarder.redeliver', store: slugOf, target: (params) => params.id, detail: (_body, answer) => pick(answer, ['queued']) },
  'POST /backups': { action: 'backup.download' },
};

/** Answers that are the admin guard's refusals, not actions. */
const NOT_ACTIONS = new Set([401, 403, 429]);
const MAX_TEXT = 200;

function objectOf(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value.slice(0, MAX_TEXT) : null;
}

function answerOf(payload: unknown): Json {
  if (typeof payload !== 'string' || payload.length > 1_000_000) return {};
  try {
    return objectOf(JSON.parse(payload));
  } catch {
    return {};
  }
}

function detailOrNull(detail: Json): Json | null {
  return Object.keys(detail).length === 0 ? null : detail;
}

/** `desktop; user=<name>` from the desktop app; anything else is an HTTP client of the admin token. */
function auditActorOf(request: FastifyRequest): AuditActor {
  const mark = request.headers[ADMIN_CLIENT_HEADER];
  if (typeof mark === 'string' && /^desktop\b/.test(mark)) {
    const user = /;\s*user=([^;]*)/.exec(mark)?.[1];
    return { actor: 'desktop app', detail: user ? decodeURIComponent(user).slice(0, MAX_TEXT) : null };
  }
  return { actor: 'admin token', detail: request.ip };
}

export const auditTrailPlugin = fp(auditTrail, { name: 'lore-audit-trail', fastify: '5.x' });

async function auditTrail(app: FastifyInstance, deps: { audit: AuditLog; prefix: string }): Promise<void> {
  const { audit, prefix } = deps;
  app.decorateRequest('auditDetail', null);

  const entryOf = (request: FastifyRequest): Entry | undefined => {
    const url = request.routeOptions.url;
    if (url === undefined || !url.startsWith(prefix)) return undefined;
    return ACTIONS[`${request.method} ${url.slice(prefix.length)}`];
  };

  const record = async (request: FastifyRequest, status: number, payload: unknown) => {
    const entry = entryOf(request);
    if (!entry || NOT_ACTIONS.has(status)) return;
    const params = objectOf(request.params);
    const body = objectOf(request.body);
    const answer = answerOf(payload);
    const failed = status >= 400;
    await audit.record({
      action: entry.action,
      outcome: failed ? 'failed' : 'succeeded',
      store: textOrNull(entry.store?.(params, body)),
      target: failed ? textOrNull(objectOf(request.params).id) : textOrNull(entry.target?.(params, answer)),
      errorCode: failed ? (textOrNull(objectOf(answer.error).code) ?? `http_${status}`) : null,
      detail: detailOrNull({ ...entry.detail?.(body, failed ? {} : answer), ...request.auditDetail }),
      actor: auditActorOf(request),
    });
  };

  const recorded = new WeakSet<FastifyRequest>();
  app.addHook('onSend', async (request, reply, payload) => {
    // A stream's outcome is known once it has ended (onResponse).
    if (typeof payload === 'string' || payload === null || payload === undefined) {
      recorded.add(request);
      await record(request, reply.statusCode, payload);
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (!recorded.has(request)) await record(request, reply.statusCode, null);
  });
}
