/**
 * What a launched course reaches beside the Store's xAPI endpoint, on the same origin (no CORS
 * trouble for content that expects its LMS there):
 *
 *   /<slug>/packages/<id>/<path>         the package's files, while the package exists
 *   /<slug>/bench/fetch/<launch>/<secret> a cmi5 launch's fetch URL (POST, once)
 *
 * Served on the origin of the admin console too. The console keeps its admin token in its own
 * tab's session storage (or, in the desktop app, in the main process), which a package opened in
 * a tab or window of its own cannot read; docs/test-bench.md says more.
 */
import type { FastifyInstance } from 'fastify';
import type { BenchContext } from '../../bench/bench-context';
import { redeemFetch } from '../../bench/launches';
import { safeRelativePath } from '../../bench/package-archive';
import { errors } from '../errors';

/** The media types of what courses ship; anything else is served as bytes. */
const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ico: 'image/x-icon',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  pdf: 'application/pdf',
  wasm: 'application/wasm',
};

/**
 * The one byte range a Range header asks for (RFC 9110 §14.1.2: `bytes=a-b`, `bytes=a-`,
 * `bytes=-n`), within a file of `size` bytes. Null: no range or one this does not serve (several
 * ranges, another unit): the whole file is answered, as the RFC allows.
 */
function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

function contentTypeOf(path: string): string {
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}

export default async function benchContentRoutes(app: FastifyInstance, deps: { bench: BenchContext }): Promise<void> {
  const { storage } = deps.bench;

  app.get<{ Params: { slug: string; id: string; '*': string } }>('/:slug/packages/:id/*', async (request, reply) => {
    const store = await storage.findStoreBySlug(request.params.slug);
    if (!store) throw errors.storeNotFound(request.params.slug);
    const wanted = request.params['*'] === '' || request.params['*'].endsWith('/') ? `${request.params['*']}index.html` : request.params['*'];
    const path = safeRelativePath(wanted);
    const content = path === null ? null : await storage.readPackageFile(store.id, request.params.id, path);
    if (path === null || content === null) {
      throw errors.notFound('package_file_not_found', `No file "${wanted}" in package "${request.params.id}" of Store "${store.slug}".`);
    }
    const body = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    reply.header('content-type', contentTypeOf(path)).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').header('accept-ranges', 'bytes');
    // A video or audio element seeks with a Range request: one range is answered, 206.
    const range = byteRange(request.headers.range, body.length);
    if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${body.length}`).send();
    if (range === null) return reply.send(body);
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${body.length}`)
      .send(body.subarray(range.start, range.end + 1));
  });

  // cmi5 3.3: POST only; always 200 JSON, the token once and an error object after.
  app.post<{ Params: { slug: string; launch: string; secret: string } }>('/:slug/bench/fetch/:launch/:secret', async (request) => {
    const store = await storage.findStoreBySlug(request.params.slug);
    if (!store) return { 'error-code': '2', 'error-text': `No Store has the slug "${request.params.slug}".` };
    return redeemFetch(deps.bench, store, request.params.launch, request.params.secret);
  });
  app.get('/:slug/bench/fetch/:launch/:secret', async (_request, reply) =>
    reply.code(405).header('allow', 'POST').send({ 'error-code': '3', 'error-text': 'The fetch URL is called with POST.' }),
  );
}
