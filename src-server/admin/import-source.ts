/**
 * Reading statements from another LRS for an import (docs/import.md): GET /statements oldest first
 * (`ascending=true`, so they are inserted in the source's stored order), following `more` to the
 * end, and a voided statement by `voidedStatementId`. Basic credentials from the key and secret;
 * the version header 1.0.3, or 2.0.0 when the source refuses 1.0.3. Every failure is an
 * ImportSourceError whose message says what the source answered, never the secret.
 */

export class ImportSourceError extends Error {
  constructor(
    message: string,
    /** Worth trying again later: the source could not be reached, timed out, or answered 429/5xx. */
    readonly transient: boolean,
    /** The source refused the `more` link (a link that expired): the pull starts again from a time. */
    readonly moreRefused = false,
  ) {
    super(message);
    this.name = 'ImportSourceError';
  }
}

export interface SourcePage {
  statements: unknown[];
  /** The next page's link, as the source wrote it; null at the end. */
  more: string | null;
}

export interface ImportSourceOptions {
  endpoint: string;
  key: string;
  secret: string;
  /** Longest wait for one answer. Default 30 s. */
  timeoutMs?: number;
  /** Where a stop is heard: a request under way is given up. */
  signal?: AbortSignal;
  /** Statements per page asked of the source (`limit`); absent: the source's own page size. */
  pageSize?: number;
}

const VERSIONS = ['1.0.3', '2.0.0'] as const;

export class ImportSource {
  private version: (typeof VERSIONS)[number] = VERSIONS[0];
  private readonly base: URL;
  private readonly authorization: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: ImportSourceOptions) {
    // The endpoint names the xAPI root; statements are below it.
    this.base = new URL(options.endpoint.endsWith('/') ? options.endpoint : `${options.endpoint}/`);
    this.authorization = `Basic ${Buffer.from(`${options.key}:${options.secret}`).toString('base64')}`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** The first page: oldest first, after `since` when given. */
  firstPage(since: string | null): Promise<SourcePage> {
    const url = new URL('statements', this.base);
    url.searchParams.set('ascending', 'true');
    if (since !== null) url.searchParams.set('since', since);
    if (this.options.pageSize !== undefined) url.searchParams.set('limit', String(this.options.pageSize));
    return this.page(url, false);
  }

  /**
   * The page a `more` link names. xAPI §2.1.3: `more` is relative to the LRS's origin (an absolute
   * path); a full URL is accepted as well.
   */
  nextPage(more: string): Promise<SourcePage> {
    return this.page(new URL(more, this.base.origin), true);
  }

  /** A statement by id, voided or not (`voidedStatementId` finds only voided ones); null when the source has none. */
  async voidedStatement(statementId: string): Promise<unknown> {
    const url = new URL('statements', this.base);
    url.searchParams.set('voidedStatementId', statementId);
    const response = await this.get(url);
    if (response.status === 404) return null;
    await this.assertOk(response, false);
    return this.json(response);
  }

  private async page(url: URL, isMore: boolean): Promise<SourcePage> {
    const response = await this.get(url);
    await this.assertOk(response, isMore);
    const body = await this.json(response);
    const statements = isObject(body) ? body.statements : undefined;
    if (!Array.isArray(statements)) throw new ImportSourceError(`The source's answer to ${url.pathname} is not a StatementResult (no "statements" array).`, false);
    const more = isObject(body) && typeof body.more === 'string' && body.more !== '' ? body.more : null;
    return { statements, more };
  }

  /** One GET; a 400 naming the version header is tried again once with the other version. */
  private async get(url: URL): Promise<Response> {
    for (;;) {
      const response = await this.fetchOnce(url);
      if (response.status !== 400 || this.version === VERSIONS[1]) return response;
      const text = await response.clone().text();
      if (!/version/i.test(text)) return response;
      this.version = VERSIONS[1];
    }
  }

  private async fetchOnce(url: URL): Promise<Response> {
    const signals = [AbortSignal.timeout(this.timeoutMs), ...(this.options.signal ? [this.options.signal] : [])];
    try {
      return await fetch(url, {
        headers: { authorization: this.authorization, 'x-experience-api-version': this.version, accept: 'application/json' },
        signal: AbortSignal.any(signals),
        redirect: 'follow',
      });
    } catch (err) {
      if (this.options.signal?.aborted) throw err;
      const reason = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${Math.round(this.timeoutMs / 1000)} s` : describeNetworkError(err);
      throw new ImportSourceError(`The source could not be reached at ${url.origin}: ${reason}.`, true);
    }
  }

  private async assertOk(response: Response, isMore: boolean): Promise<void> {
    if (response.ok) return;
    const detail = await errorDetail(response);
    const status = response.status;
    if (status === 401) throw new ImportSourceError('The source answered 401: the key and secret were refused.', false);
    if (status === 403) throw new ImportSourceError(`The source answered 403: the key may not read statements${detail}.`, false);
    if (status === 429 || status >= 500) throw new ImportSourceError(`The source answered ${status}${detail}; the import tries again.`, true);
    throw new ImportSourceError(`The source answered ${status}${detail}.`, false, isMore && (status === 400 || status === 404 || status === 410));
  }

  private async json(response: Response): Promise<unknown> {
    try {
      return await response.json();
    } catch {
      throw new ImportSourceError('The source answered with something that is not JSON.', false);
    }
  }
}

/** What the source said about an error, briefly: its message when it sent one. */
async function errorDetail(response: Response): Promise<string> {
  const text = (await response.text().catch(() => '')).trim();
  if (text === '') return '';
  try {
    const body: unknown = JSON.parse(text);
    if (isObject(body) && typeof body.message === 'string') return ` (${body.message.slice(0, 300)})`;
  } catch {
    // Not JSON: the start of the text.
  }
  return ` (${text.slice(0, 200)})`;
}

function describeNetworkError(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const code = isObject(cause) && typeof cause.code === 'string' ? cause.code : null;
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ENOTFOUND') return 'the host name is unknown';
  return code ?? (cause instanceof Error ? cause.message : String(cause));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
