/**
 * /admin/api/stores/:slug/imports: importing statements into a Store (docs/import.md). POST with
 * JSON starts a pull from another LRS (answered at once: it runs in the background); POST with an
 * NDJSON body imports a file, read line by line as it streams, answered once read. GET lists the
 * Store's imports with their progress and counts, or one of them.
 */
import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { startImportSchema } from '../../../admin/contract';
import { ImportBodyTooLargeError, importJobView, type ImportJobs } from '../../../admin/import-jobs';
import { errors } from '../../errors';
import { parseInput } from '../../parse-input';
import { findStoreOr404, type AdminRouteDeps } from './stores';

export interface ImportRouteOptions extends AdminRouteDeps {
  imports: ImportJobs;
}

const NDJSON_TYPES = ['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/jsonlines'];

export default async function importRoutes(app: FastifyInstance, options: ImportRouteOptions): Promise<void> {
  // The body is handed over unread: the import reads it line by line (never whole in memory).
  app.addContentTypeParser(NDJSON_TYPES, (_request, payload, done) => done(null, payload));

  app.get<{ Params: { slug: string } }>('/stores/:slug/imports', async (request) => {
    const store = await findStoreOr404(options.storage, request.params.slug);
    return { imports: (await options.imports.list(store)).map(importJobView) };
  });

  app.get<{ Params: { slug: string; id: string } }>('/stores/:slug/imports/:id', async (request) => {
    const store = await findStoreOr404(options.storage, request.params.slug);
    const job = await options.imports.find(store, request.params.id);
    if (!job) throw errors.notFound('import_not_found', `Store "${store.slug}" has no import with id ${request.params.id}.`);
    return importJobView(job);
  });

  app.post<{ Params: { slug: string }; Querystring: { fileName?: string } }>('/stores/:slug/imports', async (request, reply) => {
    const store = await findStoreOr404(options.storage, request.params.slug);
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (NDJSON_TYPES.includes(type)) {
      const fileName = typeof request.query.fileName === 'string' ? request.query.fileName.slice(0, 200) : null;
      try {
        const job = await options.imports.importNdjson(store, request.body as Readable, fileName);
        return reply.code(201).send(importJobView(job));
      } catch (err) {
        if (err instanceof ImportBodyTooLargeError) throw errors.bodyTooLarge(`${err.message} (import ${err.job.id})`);
        throw err;
      }
    }
    if (type !== 'application/json') {
      throw errors.unsupportedMediaType('Send a pull as application/json, or a file of statements as application/x-ndjson.');
    }
    const input = parseInput(startImportSchema, request.body, 'body');
    const job = await options.imports.startPull(store, input);
    return reply.code(201).send(importJobView(job));
  });
}
