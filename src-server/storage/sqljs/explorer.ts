/**
 * The Statement Explorer's search in the embedded database: accepted, voided and rejected
 * statements of a Store, newest first, in one seq order (statements and rejections share the
 * counter). Each half is read by its own index-driven query (queries.ts). Every record shows the
 * statement as the client sent it (received.ts); accepted and voided ones also as stored.
 */
import { explorerDrive, explorerLists, matchesNothing } from '../explorer-query';
import type { ExplorerPage, ExplorerQuery, ExplorerRecord } from '../storage';
import { mergedExplorerSeqs } from './explorer-merge';
import { explorerRejectionQuery, explorerRowsBySeq, explorerStatementQuery, runQuery } from './queries';
import type { Row } from './sql';
import { lrsAddedNames } from './received';
import type { Sql } from './sql';
import { receivedText } from './statement-codec';
import { toStoredStatement } from './statement-reads';

/** The statement half's rows: by one index walk, or merged across a filter's several values (explorer-merge.ts). */
function statementRows(sql: Sql, storeNum: number, query: ExplorerQuery, need: number): Row[] {
  const lists = explorerLists(query);
  const drive = explorerDrive(query, lists);
  if (drive === null || drive.values.length === 1) return runQuery(sql, explorerStatementQuery(storeNum, query, need));
  const seqs = mergedExplorerSeqs(sql, storeNum, query, lists, drive, need);
  return seqs.length === 0 ? [] : runQuery(sql, explorerRowsBySeq(seqs));
}

/**
 * The rejection half's rows. A filter of many values reads the rejected log's index once for each:
 * not when the Store has no rejection below the page to find (a name matching 1,000 learners cost
 * 3 ms of index reads for nothing).
 */
function rejectionRows(sql: Sql, storeNum: number, query: ExplorerQuery, need: number): Row[] {
  const lists = explorerLists(query);
  const many = [lists.agents, lists.activities, lists.verbs].some((values) => values !== undefined && values.length > 1);
  if (many && !sql.first('SELECT 1 FROM rejections INDEXED BY rejections_store WHERE store_num = ? AND seq < ? LIMIT 1', [storeNum, query.beforeSeq ?? Number.MAX_SAFE_INTEGER])) {
    return [];
  }
  return runQuery(sql, explorerRejectionQuery(storeNum, query, need));
}

/** The statement as received, when a row keeps a copy (the compact form, decoded against the stored text). */
function receivedOf(column: unknown, storedJson: string): { received?: unknown; receivedJson?: string } {
  const receivedJson = column === null ? null : receivedText(column, storedJson);
  return receivedJson === null ? {} : { received: JSON.parse(receivedJson) as unknown, receivedJson };
}

/** One page; `limit` is checked by the caller. */
export function searchExplorerRows(sql: Sql, storeNum: number, query: ExplorerQuery): ExplorerPage {
  const { limit } = query;
  const records: ExplorerRecord[] = [];
  if (matchesNothing(explorerLists(query))) return { records, nextBeforeSeq: null };
  if (query.status !== 'rejected') {
    for (const row of statementRows(sql, storeNum, query, limit + 1)) {
      const s = toStoredStatement(row);
      records.push({
        seq: s.seq,
        status: s.voided ? 'voided' : 'accepted',
        statementId: s.statementId,
        receivedAt: s.stored,
        keyId: s.keyId,
        // Parsed only if read: the Explorer's page is written from the text (storedJson).
        get stored() {
          return s.statement;
        },
        storedJson: s.statementJson,
        ...receivedOf(row[6], s.statementJson),
        ...(row[7] === null ? {} : { lrsAdded: lrsAddedNames(row[7]) }),
        warnings: row[8] === null ? [] : (JSON.parse(row[8] as string) as ExplorerRecord['warnings']),
        error: null,
      });
    }
  }
  // A rejected statement has errors, not warnings: "only with warnings" leaves them out.
  if ((query.status === undefined || query.status === 'rejected') && !query.warned) {
    for (const [seq, statementId, payload, receivedAt, keyId, error] of rejectionRows(sql, storeNum, query, limit + 1)) {
      records.push({
        seq: seq as number,
        status: 'rejected',
        statementId: statementId as string | null,
        receivedAt: receivedAt as string,
        keyId: keyId as string,
        payload: JSON.parse(payload as string),
        error: JSON.parse(error as string) as ExplorerRecord['error'],
      });
    }
  }
  // Each half is newest first and holds up to limit + 1 rows: the page is the newest `limit` of both.
  records.sort((a, b) => b.seq - a.seq);
  const page = records.slice(0, limit);
  return { records: page, nextBeforeSeq: records.length > limit ? page[page.length - 1]!.seq : null };
}
