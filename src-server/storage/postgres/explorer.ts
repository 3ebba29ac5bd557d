/**
 * Rejections and the Statement Explorer in PostgreSQL: statements the LRS refused, kept as
 * received with the reason, and the search over them and the stored statements, newest first in
 * one seq order (both take their seqs from `record_seq`).
 */
import type { LrsSetProperty } from '../../xapi/received-statement';
import { explorerLists, matchesNothing } from '../explorer-query';
import { rejectionExplorerRecord, statementExplorerRecord } from '../row-values';
import type { ExplorerPage, ExplorerQuery, ExplorerRecord, RejectionRow } from '../storage';
import type { PostgresDatabase, Tx } from './database';
import { countRejections } from './ingestion';
import { takeSeqs } from './record-seq';
import { explorerRejectionQuery, explorerStatementQuery } from './statement-queries';
import { toStoredStatement } from './statement-reads';
import type { StatementDbRow } from './statement-reads';

/** The registration a rejected payload names, lower-cased, so the Explorer can find it by one. */
function payloadRegistration(payload: unknown): string | null {
  const context = (payload as { context?: { registration?: unknown } } | null)?.context;
  return typeof context?.registration === 'string' ? context.registration.toLowerCase() : null;
}

/** Resolves with the rows' seqs, ascending. */
export async function insertRejectionRows(tx: Tx, storeNum: number, rows: RejectionRow[]): Promise<number[]> {
  const seqs = await takeSeqs(tx, rows.length);
  await tx.query(
    `INSERT INTO rejections (store_num, seq, received_at, received_ms, key_id, statement_id, payload, error, agent, verb_id, activity_id, registration)
     SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
       $11::text[], $12::text[])`,
    [
      storeNum,
      seqs,
      rows.map((r) => r.receivedAt),
      rows.map((r) => Date.parse(r.receivedAt)),
      rows.map((r) => r.keyId),
      rows.map((r) => r.statementId),
      rows.map((r) => JSON.stringify(r.payload ?? null)),
      rows.map((r) => JSON.stringify(r.error)),
      rows.map((r) => r.agent),
      rows.map((r) => r.verbId),
      rows.map((r) => r.activityId),
      rows.map((r) => payloadRegistration(r.payload)),
    ],
  );
  await countRejections(tx, storeNum, rows);
  return seqs;
}

interface ExplorerStatementRow extends StatementDbRow {
  received: string | null;
  /** What the LRS added, by name (written from StatementRow.lrsAdded). */
  lrs_added: LrsSetProperty[] | null;
  warnings: string | null;
}

interface RejectionDbRow {
  seq: number;
  statement_id: string | null;
  payload: string;
  received_at: string;
  key_id: string;
  error: string;
}

/** One page; `limit` is checked by the caller. */
export async function searchExplorerRows(db: PostgresDatabase, storeNum: number, query: ExplorerQuery): Promise<ExplorerPage> {
  const { limit } = query;
  const records: ExplorerRecord[] = [];
  if (matchesNothing(explorerLists(query))) return { records, nextBeforeSeq: null };
  if (query.status !== 'rejected') {
    const q = explorerStatementQuery(storeNum, query, limit + 1);
    for (const row of await db.prepared<ExplorerStatementRow>(q.text, q.values)) {
      records.push(statementExplorerRecord(toStoredStatement(row), { receivedJson: row.received, lrsAdded: row.lrs_added, warningsJson: row.warnings }));
    }
  }
  // A rejected statement has errors, not warnings: "only with warnings" leaves them out.
  if ((query.status === undefined || query.status === 'rejected') && !query.warned) {
    const q = explorerRejectionQuery(storeNum, query, limit + 1);
    for (const row of await db.prepared<RejectionDbRow>(q.text, q.values)) {
      records.push(
        rejectionExplorerRecord({ seq: row.seq, statementId: row.statement_id, receivedAt: row.received_at, keyId: row.key_id, payloadJson: row.payload, errorJson: row.error }),
      );
    }
  }
  // Each half is newest first and holds up to limit + 1 rows: the page is the newest `limit` of both.
  records.sort((a, b) => b.seq - a.seq);
  const page = records.slice(0, limit);
  return { records: page, nextBeforeSeq: records.length > limit ? page[page.length - 1]!.seq : null };
}
