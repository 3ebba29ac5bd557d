/**
 * GET /agents?agent=… (xAPI 1.0.3 Part Three §2.4; 2.0.0 Part Four §4.1.6.3): the Person Object
 * for an Agent (src-server/xapi/person.ts says what it holds and why).
 * Only this exact path: /agents/profile is the Agent Profile Resource.
 */
import type { FastifyInstance } from 'fastify';
import { canReadDefinitions } from '../../../lrs/activities';
import { parseAgentsQuery, personFor } from '../../../xapi/person';
import { errors } from '../../errors';
import { sendJsonWithEtag } from '../../json-etag';
import { singleQueryParams } from '../../query-params';

export default async function agentRoutes(app: FastifyInstance): Promise<void> {
  app.get('/agents', async (request, reply) => {
    if (!canReadDefinitions(request.lrsKey)) throw errors.missingScope('statements/read or define');
    const parsed = parseAgentsQuery(singleQueryParams(request));
    if (!parsed.ok) throw errors.invalidParameter(parsed.issue.message, parsed.issue.field);
    return sendJsonWithEtag(reply, personFor(parsed.agent));
  });
}
