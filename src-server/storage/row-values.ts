/**
 * Row values every Storage implementation prepares the same way: a statement's signature when it
 * was left to be computed, its index terms once each, exactly the fields of a refusal, a stored
 * statement whose JSON is parsed only when read, and the Explorer's record of a stored statement.
 */
import { asBuffer } from '../xapi/json-text';
import { statementSignature } from '../xapi/statement-signature';
import type { LrsSetProperty } from '../xapi/received-statement';
import type { ExplorerRecord, IndexTerm, RefusalRow, StatementRow, StoredStatement } from './storage';

/** Up to this many terms, dedupeTerms scans; beyond, a scan per term would cost more than a map. */
const SCANNED_TERMS = 16;

/** A row's signature as written: computed now when it was left to be (StatementRow.signature null). */
export function signatureOf(row: Pick<StatementRow, 'signature' | 'statement'>): string {
  return row.signature ?? statementSignature(row.statement);
}

/**
 * The signature of a stored statement from its signature column: '' stands for one not computed
 * when it was written (StatementRow.signature null), computed from the statement's JSON text now.
 */
export function signatureOfStored(column: string, statementJson: () => string): string {
  return column !== '' ? column : statementSignature(JSON.parse(statementJson()) as Record<string, unknown>);
}

/**
 * One term per (kind, value): primary when any of its occurrences is. A statement usually has a
 * handful of terms: a scan of those kept so far costs less than a map keyed by a joined string.
 */
export function dedupeTerms(terms: IndexTerm[]): IndexTerm[] {
  if (terms.length > SCANNED_TERMS) return dedupeTermsByKey(terms);
  const out: IndexTerm[] = [];
  for (const term of terms) {
    const seen = out.find((kept) => kept.value === term.value && kept.kind === term.kind);
    if (!seen) out.push({ kind: term.kind, value: term.value, primary: term.primary });
    else if (term.primary) seen.primary = true;
  }
  return out;
}

function dedupeTermsByKey(terms: IndexTerm[]): IndexTerm[] {
  const byKey = new Map<string, IndexTerm>();
  for (const term of terms) {
    const key = `${term.kind}\u0000${term.value}`;
    const seen = byKey.get(key);
    if (!seen || (term.primary && !seen.primary)) byKey.set(key, { kind: term.kind, value: term.value, primary: term.primary });
  }
  return [...byKey.values()];
}

/** Exactly the interface's fields of a refusal: nothing else a caller attached is stored. */
export function refusalFields(r: RefusalRow): RefusalRow {
  return {
    at: r.at,
    lastAt: r.lastAt,
    count: r.count,
    method: r.method,
    path: r.path,
    status: r.status,
    code: r.code,
    reason: r.reason,
    keyId: r.keyId,
    client: r.client,
    userAgent: r.userAgent,
  };
}

/**
 * A stored statement as read. The statement is parsed only when asked for: a page of GET
 * /statements in the default format is answered from the stored text (statementJson), or from its
 * UTF-8 bytes when the storage decoded it to bytes (statementUtf8), then made a string only if
 * something asks for the text. A class, so the getters live on the prototype: an object literal
 * with its own getter cost a page of 50 ~3% of a filtered GET's CPU at 1M statements.
 */
export class LazyStoredStatement implements StoredStatement {
  private parsed: Record<string, unknown> | undefined;
  private text: string | undefined;
  private readonly utf8: Uint8Array | undefined;

  constructor(
    readonly seq: number,
    readonly statementId: string,
    statement: string | Uint8Array,
    readonly stored: string,
    readonly voided: boolean,
    readonly keyId: string,
  ) {
    if (typeof statement === 'string') this.text = statement;
    else this.utf8 = statement;
  }

  get statementJson(): string {
    this.text ??= asBuffer(this.utf8!).toString('utf8');
    return this.text;
  }

  get statementUtf8(): Uint8Array | undefined {
    return this.utf8;
  }

  get statement(): Record<string, unknown> {
    this.parsed ??= JSON.parse(this.statementJson) as Record<string, unknown>;
    return this.parsed;
  }
}

/** What a statement's row keeps beside the statement, each as the backend read it (null: nothing kept). */
export interface ExplorerRowExtras {
  /** The statement as received, as JSON text, when it differs from the stored one. */
  receivedJson: string | null;
  lrsAdded: LrsSetProperty[] | null;
  /** StatementRow.warnings as JSON text. */
  warningsJson: string | null;
}

/** A rejected statement's row, each column as the backend read it (payload and error as JSON text). */
export interface RejectionExplorerRow {
  seq: number;
  statementId: string | null;
  receivedAt: string;
  keyId: string;
  payloadJson: string;
  errorJson: string;
}

/** A rejected statement's Explorer record. */
export function rejectionExplorerRecord(row: RejectionExplorerRow): ExplorerRecord {
  return {
    seq: row.seq,
    status: 'rejected',
    statementId: row.statementId,
    receivedAt: row.receivedAt,
    keyId: row.keyId,
    payload: JSON.parse(row.payloadJson),
    error: JSON.parse(row.errorJson) as ExplorerRecord['error'],
  };
}

/** An accepted or voided statement's Explorer record. */
export function statementExplorerRecord(s: StoredStatement, extras: ExplorerRowExtras): ExplorerRecord {
  const { receivedJson, lrsAdded, warningsJson } = extras;
  return {
    seq: s.seq,
    status: s.voided ? 'voided' : 'accepted',
    statementId: s.statementId,
    receivedAt: s.stored,
    keyId: s.keyId,
    // Parsed only if read: the Explorer's page is written from the bytes (storedUtf8) where the
    // storage decoded the statement to bytes, else from the text (storedJson).
    get stored() {
      return s.statement;
    },
    ...(s.statementUtf8 === undefined ? { storedJson: s.statementJson } : { storedUtf8: s.statementUtf8 }),
    ...(receivedJson === null ? {} : { received: JSON.parse(receivedJson) as unknown, receivedJson }),
    ...(lrsAdded === null ? {} : { lrsAdded }),
    warnings: warningsJson === null ? [] : (JSON.parse(warningsJson) as ExplorerRecord['warnings']),
    error: null,
  };
}
