/**
 * JSON depth and string length of every JSON body on the xAPI routes, checked in the JSON parser:
 * a scan of the text before JSON.parse (limits-json-scan.ts). Both are service-wide: they protect
 * the process, not a tenant's policy. The scan's count of top-level items is kept on the request
 * (`lrsBodyScan`) for the batch limit (body-content-limits.ts).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceLimits } from '../../limits/service-limits';
import { findJsonSyntaxFault, invalidJsonMessage } from '../../xapi/json-syntax-error';
import { errors } from '../errors';
import { isStatementWrite, scanFault } from './limit-answers';
import { scanJson } from './limits-json-scan';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the JSON pre-scan saw of this request's body (null: not a JSON body). */
    lrsBodyScan: { topLevelItems: number | null } | null;
  }
}

/** Decorates requests with `lrsBodyScan`. */
export const jsonBodyLimitsPlugin = fp(jsonBodyLimits, { name: 'lore-json-body-limits', fastify: '5.x' });

async function jsonBodyLimits(app: FastifyInstance, deps: { limits: ServiceLimits }): Promise<void> {
  const service = deps.limits;
  app.decorateRequest('lrsBodyScan', null);

  // Every JSON body is scanned before it is parsed. Other bodies (documents, multipart) arrive as
  // bytes and are checked in preHandler where they are JSON.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    const scan = scanJson(text, { maxDepth: service.maxJsonDepth, maxStringLength: service.maxStringLength });
    if (!scan.ok) {
      done(scanFault(scan, service, isStatementWrite(request)), undefined);
      return;
    }
    request.lrsBodyScan = scan;
    // Called in its callback form: it answers through `done`, whatever it returns.
    void parseJson(request, text, (error, value) => {
      if (error === null) return done(null, value);
      // Valid JSON refused anyway (a forbidden __proto__ key) keeps the parser's own message.
      done(findJsonSyntaxFault(text) === null ? error : errors.invalidBody(invalidJsonMessage(text)), undefined);
    });
  });

}
