/**
 * /admin/api/stores/:slug/packages and /attempts: the Test Bench's packages (import a zip, list,
 * delete), launches, and the attempts they made. Thin over src-server/bench/.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { attemptView } from '../../../bench/attempts';
import type { BenchContext } from '../../../bench/bench-context';
import { LaunchRefusal, launchUnit } from '../../../bench/launches';
import { importPackage, PACKAGE_LIMITS, toPackageView } from '../../../bench/packages';
import { PackageError } from '../../../bench/package-error';
import { launchInputSchema, waiverInputSchema } from '../../../admin/contract';
import { waiveUnit } from '../../../bench/waivers';
import { attemptJson, renderAttemptReport } from '../../../bench/attempt-report';
import { referenceOutcomeSchema } from '../../../bench/reference-outcome';
import { z } from 'zod';
import type { PackageRecord, Storage, StoreRecord } from '../../../storage/storage';
import { errors, LrsError } from '../../errors';
import { parseInput } from '../../parse-input';
import type { PublicUrlOf } from '../../request-origin';
import { findStoreOr404 } from './stores';

type PackageParams = { Params: { slug: string; id: string } };

const reportQuerySchema = z.strictObject({ format: z.enum(['html', 'json']).default('html') });

async function findPackageOr404(storage: Storage, store: StoreRecord, id: string): Promise<PackageRecord> {
  const pkg = await storage.findPackage(store.id, id);
  if (!pkg) throw errors.notFound('package_not_found', `No package "${id}" in Store "${store.slug}".`);
  return pkg;
}

/** The zip as it arrives, to a temporary file (a zip is read from its end); refused past the limit. */
async function receiveZip(body: NodeJS.ReadableStream, limitBytes: number): Promise<{ file: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lore-package-'));
  const file = path.join(dir, 'package.zip');
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > limitBytes) done(errors.tooLarge(`The package is larger than ${Math.round(limitBytes / 1024 / 1024)} MB, the most the Test Bench takes.`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(body, counter, createWriteStream(file));
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return { file, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export default async function benchRoutes(app: FastifyInstance, deps: { bench: BenchContext; publicUrl: PublicUrlOf; zipLimitBytes?: number }): Promise<void> {
  const { bench } = deps;
  const { storage } = bench;
  const zipLimit = deps.zipLimitBytes ?? PACKAGE_LIMITS.maxZipBytes;

  // The zip stays a stream here; the route writes it to a file before reading it.
  app.addContentTypeParser(['application/zip', 'application/x-zip-compressed'], { bodyLimit: zipLimit }, (_request, payload, done) => {
    done(null, payload);
  });

  app.post<{ Params: { slug: string } }>('/stores/:slug/packages', async (request, reply) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/zip' && type !== 'application/x-zip-compressed') {
      throw errors.unsupportedMediaType('Send the package as its zip file, with Content-Type: application/zip.');
    }
    const zip = await receiveZip(request.body as NodeJS.ReadableStream, zipLimit);
    try {
      const pkg = await importPackage(bench, store, zip.file);
      return reply.code(201).send(toPackageView(pkg));
    } catch (err) {
      if (err instanceof PackageError) throw errors.badRequest('invalid_package', `The package was refused: ${err.message}`, err.file ?? undefined);
      throw err;
    } finally {
      await zip.cleanup();
    }
  });

  app.get<{ Params: { slug: string } }>('/stores/:slug/packages', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    return { packages: (await storage.listPackages(store.id)).map(toPackageView) };
  });

  app.delete<PackageParams>('/stores/:slug/packages/:id', async (request, reply) => {
    const store = await findStoreOr404(storage, request.params.slug);
    if (!(await storage.deletePackage(store.id, request.params.id))) {
      throw errors.notFound('package_not_found', `No package "${request.params.id}" in Store "${store.slug}".`);
    }
    return reply.code(204).send();
  });

  app.post<PackageParams>('/stores/:slug/packages/:id/launches', async (request, reply) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const pkg = await findPackageOr404(storage, store, request.params.id);
    const input = parseInput(launchInputSchema, request.body ?? {}, 'body');
    try {
      return reply.code(201).send(await launchUnit(bench, store, pkg, input, deps.publicUrl(request)));
    } catch (err) {
      if (err instanceof LaunchRefusal) throw new LrsError(err.status, err.code, err.message);
      throw err;
    }
  });

  app.post<PackageParams>('/stores/:slug/packages/:id/reference', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    await findPackageOr404(storage, store, request.params.id);
    const reference = parseInput(referenceOutcomeSchema, request.body ?? {}, 'body');
    await storage.setPackageReference(store.id, request.params.id, reference);
    return toPackageView(await findPackageOr404(storage, store, request.params.id));
  });

  app.delete<PackageParams>('/stores/:slug/packages/:id/reference', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    await findPackageOr404(storage, store, request.params.id);
    await storage.setPackageReference(store.id, request.params.id, null);
    return toPackageView(await findPackageOr404(storage, store, request.params.id));
  });

  app.get<{ Params: { slug: string } }>('/stores/:slug/attempts', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const launches = await storage.listLaunches(store.id, {});
    const titles = new Map((await storage.listPackages(store.id)).map((pkg) => [pkg.id, pkg.title]));
    const byRegistration = new Map<string, (typeof launches)[number][]>();
    for (const launch of launches) byRegistration.set(launch.registration, [...(byRegistration.get(launch.registration) ?? []), launch]);
    const attempts = [...byRegistration.entries()].map(([registration, ofAttempt]) => {
      const last = ofAttempt.at(-1)!;
      return {
        registration,
        packageId: last.packageId,
        title: titles.get(last.packageId) ?? '',
        actor: last.actor,
        launches: ofAttempt.length,
        lastLaunchedAt: last.createdAt,
      };
    });
    return { attempts: attempts.sort((a, b) => b.lastLaunchedAt.localeCompare(a.lastLaunchedAt)) };
  });

  async function findAttemptOr404(store: StoreRecord, registration: string) {
    const view = await attemptView(storage, store, registration);
    if (!view) throw errors.notFound('attempt_not_found', `No Test Bench launch in Store "${store.slug}" has the registration "${registration}".`);
    return view;
  }

  app.get<{ Params: { slug: string; registration: string } }>('/stores/:slug/attempts/:registration', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    return findAttemptOr404(store, request.params.registration);
  });

  app.post<{ Params: { slug: string; registration: string } }>('/stores/:slug/attempts/:registration/waivers', async (request, reply) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const input = parseInput(waiverInputSchema, request.body ?? {}, 'body');
    try {
      return reply.code(201).send(await waiveUnit(bench, store, request.params.registration, input));
    } catch (err) {
      if (err instanceof LaunchRefusal) throw new LrsError(err.status, err.code, err.message);
      throw err;
    }
  });

  // A report to keep or send: a page a person reads (html) or the data for tools (json).
  app.get<{ Params: { slug: string; registration: string }; Querystring: Record<string, unknown> }>(
    '/stores/:slug/attempts/:registration/report',
    async (request, reply) => {
      const store = await findStoreOr404(storage, request.params.slug);
      const { format } = parseInput(reportQuerySchema, request.query, 'query');
      const view = await findAttemptOr404(store, request.params.registration);
      const pkg = await findPackageOr404(storage, store, view.packageId);
      const context = { courseTitle: pkg.title, storeName: store.name, generatedAt: new Date(), reference: view.reference };
      // The slug and a registration's hex and hyphens only: nothing in the name needs quoting.
      const name = `test-bench-${store.slug}-${view.registration.replace(/[^0-9a-zA-Z-]/g, '').slice(0, 8)}.${format}`;
      return reply
        .header('content-type', format === 'html' ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('x-content-type-options', 'nosniff')
        .send(format === 'html' ? renderAttemptReport(view, context) : attemptJson(view, context));
    },
  );
}
