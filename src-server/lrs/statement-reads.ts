/**
 * Reading statements: one by id (statementId / voidedStatementId) or a filtered, paged list
 * (xAPI 1.0.3 Part Three §2.1.3, 2.0.0 Part Three §2.1.3). A `more` link is an opaque token that
 * carries the query, the position and the newest seq visible when the first page was read, so that
 * later pages neither skip nor repeat rows while new statements arrive.
 */
import { z } from 'zod';
import type { StatementQuery, Storage, StoreRecord, StoredStatement } from '../storage/storage';
import { formatStatement } from '../xapi/format-statement';
import type { StatementFormat } from '../xapi/format-statement';
import { attachmentsOf } from '../xapi/statement-attachments';
import type { Statement } from '../xapi/statement-schema';
import type { ParsedStatementQuery } from '../xapi/statement-query';
import type { Outcome } from './failure';
import { asBuffer, joinedUtf8 } from '../xapi/json-text';

/** The most statements one page returns (a `limit` of 0 asks for this). */
const MAX_PAGE_SIZE = 500;

/** A time bound inside a `more` token: storage reads it as an instant, so it must be one. */
const isoInstant = z.string().max(64).refine((value) => !Number.isNaN(Date.parse(value)), 'not a timestamp');

/** A `more` token comes back from the client: everything in it is checked again. */
const moreTokenSchema = z.object({
  store: z.string(),
  format: z.enum(['ids', 'exact', 'canonical']),
  /** attachments=true: later pages come with the raw attachments too. */
  attachments: z.boolean().optional(),
  query: z.object({
    agent: z.string().optional(),
    verbId: z.string().optional(),
    activityId: z.string().optional(),
    registration: z.string().optional(),
    relatedAgents: z.boolean().optional(),
    relatedActivities: z.boolean().optional(),
    since: isoInstant.optional(),
    until: isoInstant.optional(),
    ascending: z.boolean().optional(),
    limit: z.number().int().min(1).max(MAX_PAGE_SIZE),
    afterSeq: z.number().int().nonnegative().optional(),
    maxSeq: z.number().int().nonnegative().optional(),
    /** statements/read/mine: later pages stay restricted to the key's own statements. */
    keyId: z.string().optional(),
  }),
});
type MoreToken = z.infer<typeof moreTokenSchema>;

/** Raw data of the attachments of the statements read (attachments=true, Part Three §2.1.3). */
interface AttachmentContent {
  sha2: string;
  contentType: string;
  content: Uint8Array;
}

/**
 * `body` is the answer's JSON text in UTF-8: a statement, or a StatementResult
 * (StatementResultBody). Bytes, not a string: the statements' stored bytes are copied in once, and
 * the socket writes them without measuring or encoding a 75 KB string again. `consistentThrough`
 * is for X-Experience-API-Consistent-Through, decided before the read (Storage.readBounds).
 */
export type StatementReadResult =
  | { kind: 'single'; body: Buffer; stored: string; consistentThrough: string; attachments?: AttachmentContent[] }
  | { kind: 'list'; body: Buffer; lastStored: string | null; consistentThrough: string; attachments?: AttachmentContent[] };

/**
 * A statement in the requested format, as JSON text in UTF-8. `exact` is the stored text itself
 * (its bytes, when the storage read it as bytes): parsing and re-serialising it would give the same
 * text (it was written by JSON.stringify) at a cost that dominates a page of 50.
 */
function formattedUtf8(row: StoredStatement, format: StatementFormat, acceptLanguages: string[]): Uint8Array {
  if (format === 'exact') return row.statementUtf8 ?? Buffer.from(row.statementJson, 'utf8');
  return Buffer.from(JSON.stringify(formatStatement(row.statement as never, format, acceptLanguages)), 'utf8');
}

const PAGE_HEAD = Buffer.from('{"statements":[', 'utf8');

/** The StatementResult object (StatementResultBody), written out around the statements' texts. */
function statementResultBody(statements: readonly Uint8Array[], more: string): Buffer {
  return joinedUtf8(PAGE_HEAD, statements, Buffer.from(`],"more":${JSON.stringify(more)}}`, 'utf8'));
}

export interface ReadOptions {
  acceptLanguages: string[];
  morePath: string;
  /**
   * This process's floor of stored times in flight (StoredClock.floorMs): Consistent-Through and
   * the highest seq a new query shows are decided from it before the read (Storage.readBounds), so
   * every statement that header promises is within the page. A more token keeps its own seq bound.
   */
  floorMs: number;
  /**
   * statements/read/mine: only the statements sent with this key are read; any other is answered
   * as if the Store did not have it. Unset: the whole Store.
   */
  onlyKeyId?: string;
}

export async function readStatements(
  storage: Storage,
  store: StoreRecord,
  query: ParsedStatementQuery,
  options: ReadOptions,
): Promise<Outcome<StatementReadResult>> {
  const single = query.statementId ?? query.voidedStatementId;
  if (single !== undefined) {
    const { statement: found, consistentThrough } = await storage.findStatementWithConsistentThrough(store.id, single, options.floorMs);
    // A voided statement is found only through voidedStatementId, and only it is (§2.1.3).
    const wanted =
      found !== null &&
      found.voided === (query.voidedStatementId !== undefined) &&
      (options.onlyKeyId === undefined || found.keyId === options.onlyKeyId);
    if (!found || !wanted) {
      return { ok: false, failure: { status: 404, code: 'statement_not_found', message: `No statement with id ${single} in this Store.` } };
    }
    const value: StatementReadResult = {
      kind: 'single',
      body: asBuffer(formattedUtf8(found, query.format, options.acceptLanguages)),
      stored: found.stored,
      consistentThrough,
    };
    if (query.attachments) value.attachments = await attachmentsFor(storage, store, [found.statement]);
    return { ok: true, value };
  }

  const { consistentThrough, maxSeq } = await storage.readBounds(options.floorMs);
  const storageQuery: StatementQuery = {
    agent: query.agent,
    verbId: query.verb,
    activityId: query.activity,
    registration: query.registration,
    relatedAgents: query.relatedAgents,
    relatedActivities: query.relatedActivities,
    since: query.since,
    until: query.until,
    ascending: query.ascending,
    limit: query.limit === 0 ? MAX_PAGE_SIZE : Math.min(query.limit, MAX_PAGE_SIZE),
    maxSeq,
  };
  if (options.onlyKeyId !== undefined) storageQuery.keyId = options.onlyKeyId;
  const token: MoreToken = { store: store.id, query: storageQuery, format: query.format };
  if (query.attachments) token.attachments = true;
  return { ok: true, value: await readPage(storage, store, token, options, consistentThrough) };
}

export async function readMore(
  storage: Storage,
  store: StoreRecord,
  token: string,
  options: ReadOptions,
): Promise<Outcome<StatementReadResult>> {
  const decoded = decodeMoreToken(token);
  // A token of another Store is refused like an unknown one: it must not even confirm it exists.
  // A key limited to its own statements cannot read on with a token that is not limited to them.
  if (!decoded || decoded.store !== store.id || (options.onlyKeyId !== undefined && decoded.query.keyId !== options.onlyKeyId)) {
    return { ok: false, failure: { status: 400, code: 'invalid_parameter', message: 'The more token is not valid for this Store.', field: 'more' } };
  }
  // The token keeps the seq bound of its first page; Consistent-Through is this read's.
  const { consistentThrough } = await storage.readBounds(options.floorMs);
  return { ok: true, value: await readPage(storage, store, decoded, options, consistentThrough) };
}

async function readPage(
  storage: Storage,
  store: StoreRecord,
  token: MoreToken,
  options: ReadOptions,
  consistentThrough: string,
): Promise<StatementReadResult> {
  const page = await storage.queryStatements(store.id, token.query);
  const statements = page.statements.map((row: StoredStatement) => formattedUtf8(row, token.format, options.acceptLanguages));
  const more =
    page.nextAfterSeq === null
      ? ''
      : `${options.morePath}?more=${encodeMoreToken({ ...token, query: { ...token.query, afterSeq: page.nextAfterSeq } })}`;
  const newest = page.statements.reduce<string | null>((latest, row) => (latest === null || row.stored > latest ? row.stored : latest), null);
  const result: StatementReadResult = { kind: 'list', body: statementResultBody(statements, more), lastStored: newest, consistentThrough };
  if (token.attachments) result.attachments = await attachmentsFor(storage, store, page.statements.map((row) => row.statement));
  return result;
}

/**
 * The stored raw data of every Attachment of the statements (a SubStatement's included), each
 * sha2 once. An Attachment sent with only a fileUrl has none: the client fetches it there.
 */
async function attachmentsFor(storage: Storage, store: StoreRecord, statements: Array<Record<string, unknown>>): Promise<AttachmentContent[]> {
  const sha2s = statements.flatMap((statement) =>
    attachmentsOf(statement as unknown as Statement).map(({ attachment }) => attachment.sha2.toLowerCase()),
  );
  return sha2s.length === 0 ? [] : storage.findAttachments(store.id, [...new Set(sha2s)]);
}

function encodeMoreToken(token: MoreToken): string {
  return Buffer.from(JSON.stringify(token), 'utf8').toString('base64url');
}

function decodeMoreToken(text: string): MoreToken | null {
  if (text.length > 8192 || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  try {
    const parsed = moreTokenSchema.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
