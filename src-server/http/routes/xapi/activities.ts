/**
 * GET /activities?activityId=… (xAPI 1.0.3 Part Three §2.5; 2.0.0 Part Four §4.1.6.4): the
 * Store's Activity Object, with the definition merged from the statements it accepted.
 * Only this exact path: /activities/state and /activities/profile are the document resources.
 */
import type { FastifyInstance } from 'fastify';
import { canReadDefinitions, readActivity } from '../../../lrs/activities';
import type { Storage } from '../../../storage/storage';
import { parseActivitiesQuery } from '../../../xapi/activities-query';
import { errors } from '../../errors';
import { sendJsonWithEtag } from '../../json-etag';
import { singleQueryParams } from '../../query-params';

export default async function activityRoutes(app: FastifyInstance, deps: { storage: Storage }): Promise<void> {
  app.get('/activities', async (request, reply) => {
    if (!canReadDefinitions(request.lrsKey)) throw errors.missingScope('statements/read or define');
    const parsed = parseActivitiesQuery(singleQueryParams(request));
    if (!parsed.ok) throw errors.invalidParameter(parsed.issue.message, parsed.issue.field);
    const { activity, updated } = await readActivity(deps.storage, request.lrsStore, parsed.activityId);
    if (updated !== null) reply.header('Last-Modified', new Date(updated).toUTCString());
    return sendJsonWithEtag(reply, activity);
  });
}
