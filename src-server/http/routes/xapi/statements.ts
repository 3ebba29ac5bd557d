/** /statements: POST, PUT, GET (xAPI Part Three §2.1). Thin over lrs/statement-*.ts. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasScope } from '../../../admin/api-keys';
import type { OperationFailure } from '../../../lrs/failure';
import { readMore, readStatements, type StatementReadResult } from '../../../lrs/statement-reads';
import { recordStatements } from '../../../lrs/statement-writes';
import type { StoredClock } from '../../../lrs/stored-clock';
import { parseStatementQuery } from '../../../xapi/statement-query';
import { LrsError, errors } from '../../errors';
import type { Storage } from '../../../storage/storage';

export interface StatementRouteDeps {
  storage: Storage;
  clock: StoredClock;
  publicUrl: () => string;
}

export function failureToError(failure: OperationFailure): LrsError {
  return new LrsError(failure.status, failure.code, failure.message, {
    field: failure.field,
    statementIndex: failure.statementIndex,
  });
}

function requireScope(request: FastifyRequest, needed: 'statements/write' | 'statements/read'): void {
  if (!hasScope(request.lrsKey, needed)) throw errors.missingScope(needed);
}

function queryParams(request: FastifyRequest): Record<string, string | undefined> {
  const params: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.query as Record<string, unknown>)) {
    if (Array.isArray(value)) throw errors.invalidParameter(`The parameter ${name} is given more than once.`, name);
    params[name] = typeof value === 'string' ? value : undefined;
  }
  return params;
}

function acceptLanguages(request: FastifyRequest): string[] {
  const header = request.headers['accept-language'];
  if (!header) return [];
  return header
    .split(',')
    .map((part) => part.split(';')[0]!.trim())
    .filter((tag) => tag !== '' && tag !== '*');
}

export default async function statementRoutes(app: FastifyInstance, deps: StatementRouteDeps): Promise<void> {
  const context = (request: FastifyRequest) => ({
    storage: deps.storage,
    store: request.lrsStore,
    key: request.lrsKey,
    version: request.xapiVersion,
    clock: deps.clock,
    publicUrl: deps.publicUrl(),
  });

  app.post('/statements', async (request, reply) => {
    requireScope(request, 'statements/write');
    const outcome = await recordStatements(context(request), request.body);
    if (!outcome.ok) throw failureToError(outcome.failure);
    return reply.code(200).send(outcome.value);
  });

  app.put('/statements', async (request, reply) => {
    requireScope(request, 'statements/write');
    const { statementId } = queryParams(request);
    if (statementId === undefined) {
      throw errors.invalidParameter('PUT /statements needs the statementId parameter.', 'statementId');
    }
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(statementId)) {
      throw errors.invalidParameter(`statementId must be a UUID, got "${statementId.slice(0, 100)}".`, 'statementId');
    }
    const outcome = await recordStatements(context(request), request.body, { statementId: statementId.toLowerCase() });
    if (!outcome.ok) throw failureToError(outcome.failure);
    return reply.code(204).send();
  });

  app.get('/statements', async (request, reply) => {
    requireScope(request, 'statements/read');
    const params = queryParams(request);
    const options = { acceptLanguages: acceptLanguages(request), morePath: request.url.split('?')[0]! };
    let outcome;
    if (params.more !== undefined) {
      outcome = await readMore(deps.storage, request.lrsStore, params.more, options);
    } else {
      const parsed = parseStatementQuery(params, request.xapiVersion);
      if (!parsed.ok) throw errors.invalidParameter(parsed.issue.message, parsed.issue.field);
      outcome = await readStatements(deps.storage, request.lrsStore, parsed.query, options);
    }
    if (!outcome.ok) throw failureToError(outcome.failure);
    return sendRead(reply, outcome.value);
  });
}

function sendRead(reply: FastifyReply, result: StatementReadResult) {
  // Every statement acknowledged before this read is visible to it (writes are synchronous in memory).
  reply.header('X-Experience-API-Consistent-Through', new Date().toISOString());
  const lastModified = result.kind === 'single' ? result.stored : result.lastStored;
  if (lastModified) reply.header('Last-Modified', new Date(lastModified).toUTCString());
  return reply.code(200).send(result.kind === 'single' ? result.statement : result.body);
}
