/**
 * The one catalogue of errors a client can meet, in the shape of docs/design.md ("Errors"):
 * `{"error": {"status", "code", "message", "field"?, "statementIndex"?}}`.
 * Routes throw these; the error handler (plugins/error-handler.ts) writes them.
 */

export interface ErrorDetail {
  status: number;
  code: string;
  message: string;
  field?: string;
  statementIndex?: number;
}

export class LrsError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly statementIndex: number | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { field?: string; statementIndex?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'LrsError';
    this.status = status;
    this.code = code;
    this.field = extra.field;
    this.statementIndex = extra.statementIndex;
    this.headers = extra.headers ?? {};
  }

  toBody(): { error: ErrorDetail } {
    const error: ErrorDetail = { status: this.status, code: this.code, message: this.message };
    if (this.field !== undefined) error.field = this.field;
    if (this.statementIndex !== undefined) error.statementIndex = this.statementIndex;
    return { error };
  }
}

const AUTHENTICATE = 'Basic realm="Lore LRS", Bearer realm="Lore LRS"';

export const errors = {
  badRequest: (code: string, message: string, field?: string) => new LrsError(400, code, message, { field }),
  invalidStatement: (message: string, field: string | undefined, statementIndex?: number) =>
    new LrsError(400, 'invalid_statement', message, { field, statementIndex }),
  invalidParameter: (message: string, field: string) => new LrsError(400, 'invalid_parameter', message, { field }),
  invalidBody: (message: string, field?: string) => new LrsError(400, 'invalid_body', message, { field }),
  versionHeader: (message: string) =>
    new LrsError(400, 'unsupported_version', message, { field: 'X-Experience-API-Version' }),
  unauthenticated: (message: string) =>
    new LrsError(401, 'unauthenticated', message, { headers: { 'www-authenticate': AUTHENTICATE } }),
  adminUnauthenticated: (message: string) =>
    new LrsError(401, 'unauthenticated', message, { headers: { 'www-authenticate': 'Bearer realm="Lore LRS admin"' } }),
  wrongStore: (slug: string, keyId: string) =>
    new LrsError(403, 'wrong_store', `API key "${keyId}" belongs to another Store; it cannot be used on Store "${slug}". Use a key of Store "${slug}", or the endpoint of the key's own Store.`),
  missingScope: (needed: string) =>
    new LrsError(403, 'insufficient_scope', `This API key lacks the scope needed here (${needed}).`),
  /** `publicUrl` (the service's base) shows the shape of a Store's endpoint; the admin API passes none. */
  storeNotFound: (slug: string, publicUrl?: string) =>
    new LrsError(
      404,
      'store_not_found',
      publicUrl === undefined
        ? `No Store has the slug "${slug}".`
        : `No Store has the slug "${slug}". A Store's endpoint has the shape ${publicUrl.replace(/\/+$/, '') || '{base}'}/<store_slug>/xAPI/; the slugs are listed in the console.`,
    ),
  notFound: (code: string, message: string) => new LrsError(404, code, message),
  conflict: (code: string, message: string, extra: { field?: string; statementIndex?: number } = {}) =>
    new LrsError(409, code, message, extra),
  tooLarge: (message: string) => new LrsError(413, 'payload_too_large', message),
  /** 413 before the body is read: closing the connection means the rest of it is never read. */
  bodyTooLarge: (message: string) => new LrsError(413, 'payload_too_large', message, { headers: { connection: 'close' } }),
  tooManyRequests: (code: string, message: string, retryAfterSeconds: number) =>
    new LrsError(429, code, message, { headers: { 'retry-after': String(retryAfterSeconds) } }),
  unsupportedMediaType: (message: string) =>
    new LrsError(415, 'unsupported_media_type', message, { field: 'Content-Type' }),
  storageUnavailable: (message: string) =>
    new LrsError(503, 'storage_unavailable', message, { headers: { 'retry-after': '5' } }),
  /** The database found damage in itself: no retry helps until it is repaired (README, "Recovery"). */
  storageDamaged: (message: string) => new LrsError(503, 'storage_damaged', message),
  /** The database is at its capacity: not transient like a 503, an admin must make room (README, "Capacity"). */
  storageFull: (message: string) => new LrsError(507, 'storage_full', message),
};
