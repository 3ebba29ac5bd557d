/** /admin/api/stores/:slug/empty and /test-statement: the Stores screen's actions on a Store. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { emptyStore, sendTestStatement } from '../../../admin/store-actions';
import type { StatementWriteContext } from '../../../lrs/statement-writes';
import type { StoredClock } from '../../../lrs/stored-clock';
import { LrsError, errors } from '../../errors';
import { parseInput } from '../../parse-input';
import { findStoreOr404, type AdminRouteDeps } from './stores';

const emptyBodySchema = z.strictObject({ confirm: z.string().optional() });

export default async function storeActionRoutes(app: FastifyInstance, deps: AdminRouteDeps & { identityUrl: () => string; clock: StoredClock; events: StatementWriteContext['events'] }): Promise<void> {
  const { storage } = deps;

  app.post<{ Params: { slug: string }; Querystring: { confirm?: string } }>('/stores/:slug/empty', async (request, reply) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const body = request.body === undefined || request.body === null ? {} : parseInput(emptyBodySchema, request.body, 'body');
    const emptied = await emptyStore(storage, store, body.confirm ?? request.query.confirm);
    if (!emptied.ok) {
      throw errors.badRequest(
        'confirmation_required',
        `"${store.slug}" is a live Store: type its slug back to empty it ({"confirm": "${store.slug}"}).`,
        'confirm',
      );
    }
    return reply.code(204).send();
  });

  app.post<{ Params: { slug: string } }>('/stores/:slug/test-statement', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    // What the test statement records (its authority, learner and activity) names the service as
    // it names itself, not by the Host of this request: one test activity whichever name was used.
    const outcome = await sendTestStatement({ storage, store, clock: deps.clock, publicUrl: deps.identityUrl(), events: deps.events });
    // The sample is valid by construction; a refusal here is a conflict or a bug, reported as it is.
    if (!outcome.ok) throw new LrsError(outcome.failure.status, outcome.failure.code, outcome.failure.message, { field: outcome.failure.field });
    return { statementId: outcome.value };
  });
}
