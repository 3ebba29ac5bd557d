/**
 * The web console at /admin/: the renderer electron-vite builds into out/renderer (index.html and
 * hashed assets), served by the service itself so a headless deployment has the same console as
 * the desktop app.
 *
 * - /admin/ and every /admin/<client route> answer index.html; /admin/api/... never does (an
 *   unknown API path stays a JSON 404).
 * - The renderer is built with relative URLs (`./assets/...`, which the desktop app's file://
 *   window needs); index.html is served with them made absolute (`/admin/assets/...`), so a deep
 *   client route such as /admin/stores/demo still finds its assets.
 * - Hashed assets are cached for a year (their name changes with their content); index.html is
 *   revalidated every time, so a new build shows up on reload.
 * - The build writes a brotli (`.br`) and a gzip (`.gz`) copy beside each asset
 *   (electron.vite.config.ts, `precompress`); a file is sent as the one the request's
 *   Accept-Encoding prefers, with `Content-Encoding` and the original's Content-Type, or plain
 *   when the request accepts neither or the build wrote no copy (`Vary: Accept-Encoding` always).
 * - Every answer carries a strict Content-Security-Policy and the usual hardening headers.
 */
import { existsSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

const CONSOLE_PREFIX = '/admin';

/**
 * The web console's policy: only its own scripts, styles inline (Mantine writes CSS variables),
 * requests to its own origin only, never framed (clickjacking), no plugins, no <base>, no forms.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** The compressed copies the build writes beside an asset, in the order the service prefers them. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

type Encoding = (typeof ENCODINGS)[number];

/**
 * The encodings an Accept-Encoding header allows, most wanted first: by q-value (q=0 refuses
 * one), then in the service's order. `*` stands for every encoding the header does not name.
 */
export function acceptedEncodings(header: string | undefined): Encoding[] {
  const weights = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [token = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (token === '') continue;
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(token, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (encoding: Encoding) => weights.get(encoding.name) ?? weights.get('*') ?? 0;
  return ENCODINGS.filter((encoding) => weightOf(encoding) > 0).sort((a, b) => weightOf(b) - weightOf(a));
}

/** The file as the request prefers it: its first compressed copy found, or the file itself (null when missing). */
async function readEncoded(file: string, accepted: Encoding[]): Promise<{ content: Buffer; encoding?: Encoding['name'] } | null> {
  for (const encoding of accepted) {
    const content = await fsp.readFile(file + encoding.suffix).catch(() => null);
    if (content !== null) return { content, encoding: encoding.name };
  }
  const content = await fsp.readFile(file).catch(() => null);
  return content === null ? null : { content };
}

/** A year: hashed assets never change under their name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Where the built renderer is, relative to this code: out/renderer beside out/main when bundled
 * (the service runs from out/main/*.js, or a shared chunk in out/main/chunks/), or the
 * repository's out/renderer when run from source (src-server/http/ via tsx). The first that holds an index.html wins; null when none does.
 */
export function findRendererDir(moduleUrl: string = import.meta.url): string | null {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const candidates = [
    path.resolve(here, '../renderer'), // out/main/<entry>.js
    path.resolve(here, '../../renderer'), // out/main/chunks/<shared chunk>.js
    path.resolve(here, '../../out/renderer'), // src-server/http/console-static.ts
  ];
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html'))) ?? null;
}

/** index.html's relative asset URLs made absolute under /admin/ (see the module comment). */
export function absoluteAssetUrls(html: string): string {
  return html.replace(/\b(src|href)="\.\/(?!\/)/g, `$1="${CONSOLE_PREFIX}/`);
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Lore LRS: web console not built</title></head>
<body><h1>The web console is not built</h1>
<p>Run <code>npm run build</code> in the Lore LRS directory, then reload this page.</p>
<p>The admin API works without it: <code>/admin/api</code> (description at <code>/admin/api/openapi.json</code>).</p>
</body></html>
`;

export interface ConsoleRouteOptions {
  /**
   * The built renderer's directory; by default found next to the service code (findRendererDir),
   * looked up again on each request until found, so a build made while the service runs is served.
   */
  rendererDir?: string;
}

export default async function consoleRoutes(app: FastifyInstance, options: ConsoleRouteOptions): Promise<void> {
  const rendererDir = (): string | null => options.rendererDir ?? findRendererDir();

  const sendIndex = async (reply: FastifyReply): Promise<FastifyReply> => {
    const dir = rendererDir();
    const html = dir === null ? null : await fsp.readFile(path.join(dir, 'index.html'), 'utf8').catch(() => null);
    reply.headers(SECURITY_HEADERS).header('cache-control', 'no-cache');
    if (html === null) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    return reply.type('text/html; charset=utf-8').send(absoluteAssetUrls(html));
  };

  app.get(CONSOLE_PREFIX, async (request, reply) => {
    // The relative URLs of the page's own links need the trailing slash: /admin → /admin/.
    const [pathPart, query] = request.url.split('?', 2) as [string, string | undefined];
    if (!pathPart.endsWith('/')) return reply.redirect(`${pathPart}/${query === undefined ? '' : `?${query}`}`, 308);
    return sendIndex(reply);
  });

  app.get<{ Params: { '*': string } }>(`${CONSOLE_PREFIX}/*`, async (request, reply) => {
    const rest = request.params['*'];
    // An unknown admin API path is an API 404, never the page.
    if (rest === 'api' || rest.startsWith('api/')) return reply.callNotFound();
    const dir = rendererDir();
    const file = dir === null ? null : resolveInside(dir, rest);
    if (file !== null) {
      // index.html is rewritten per request (absoluteAssetUrls): the build writes no copy of it.
      const isIndex = path.basename(file) === 'index.html';
      const found = await readEncoded(file, isIndex ? [] : acceptedEncodings(request.headers['accept-encoding']));
      if (found !== null) {
        const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
        const hashed = rest.startsWith('assets/');
        reply.headers(SECURITY_HEADERS).header('cache-control', hashed ? IMMUTABLE : 'no-cache').header('vary', 'accept-encoding').type(type);
        if (found.encoding !== undefined) reply.header('content-encoding', found.encoding);
        return reply.send(isIndex ? absoluteAssetUrls(found.content.toString('utf8')) : found.content);
      }
    }
    // A missing file (a name with an extension, or under assets/) is a 404; anything else is a client route.
    if (rest.startsWith('assets/') || /\.[a-z0-9]+$/i.test(rest)) return reply.callNotFound();
    return sendIndex(reply);
  });
}

/** The file `rest` names inside `dir`, or null when it would leave it (`..`, NUL, absolute). */
export function resolveInside(dir: string, rest: string): string | null {
  if (rest === '' || rest.includes('\0')) return null;
  const root = path.resolve(dir);
  const file = path.resolve(root, `.${path.posix.normalize(`/${rest}`)}`);
  return file.startsWith(root + path.sep) ? file : null;
}
