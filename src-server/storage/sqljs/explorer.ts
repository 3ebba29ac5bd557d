/**
 * The Statement Explorer's search in the embedded database: accepted, voided and rejected
 * statements of a Store, newest first, in one seq order (statements and rejections share the
 * counter). Each half is read by its own index-driven query (queries.ts). Every record shows the
 * statement as the client sent it (received.ts); accepted and voided ones also as stored.
 */
import { explorerDrive, explorerLists, matchesNothing } from '../explorer-query';
import { rejectionExplorerRecord, statementExplorerRecord } from '../row-values';
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

/** An accepted or voided statement's record from its row (EXPLORER_STATEMENT_COLUMNS, queries.ts). */
function statementRecord(row: Row): ExplorerRecord {
  const s = toStoredStatement(row);
  return statementExplorerRecord(s, {
    // The compact form, decoded against the stored text.
    receivedJson: row[6] === null ? null : receivedText(row[6], s.statementUtf8 ?? s.statementJson),
    lrsAdded: row[7] === null ? null : (lrsAddedNames(row[7]) ?? null),
    warningsJson: row[8] as string | null,
  });
}

/** A rejected statement's record from its row (REJECTION_COLUMNS, queries.ts). */
function rejectionRecord([seq, statementId, payload, receivedAt, keyId, error]: Row): ExplorerRecord {
  return rejectionExplorerRecord({
    seq: seq as number,
    statementId: statementId as string | null,
    receivedAt: receivedAt as string,
    keyId: keyId as string,
    payloadJson: payload as string,
    errorJson: error as string,
  });
}

/**
 * One page; `limit` is checked by the caller. Each half is read newest first, up to limit + 1
 * rows; the page is the newest `limit` of both, and only its rows are decoded and parsed (the
 * rows left over cost a statement's decoding or a payload's parse each).
 */
export function searchExplorerRows(sql: Sql, storeNum: number, query: ExplorerQuery): ExplorerPage {
  const { limit } = query;
  if (matchesNothing(explorerLists(query))) return { records: [], nextBeforeSeq: null };
  const statements = query.status !== 'rejected' ? statementRows(sql, storeNum, query, limit + 1) : [];
  // A rejected statement has errors, not warnings: "only with warnings" leaves them out.
  const rejections =
    (query.status === undefined || query.status === 'rejected') && !query.warned ? rejectionRows(sql, storeNum, query, limit + 1) : [];
  const records: ExplorerRecord[] = [];
  let i = 0;
  let j = 0;
  // Both halves are newest first: merge them by seq, the page's rows only.
  while (records.length < limit && (i < statements.length || j < rejections.length)) {
    const fromStatements = j >= rejections.length || (i < statements.length && (statements[i]![0] as number) > (rejections[j]![0] as number));
    records.push(fromStatements ? statementRecord(statements[i++]!) : rejectionRecord(rejections[j++]!));
  }
  const more = i < statements.length || j < rejections.length;
  return { records, nextBeforeSeq: more && records.length > 0 ? records[records.length - 1]!.seq : null };
}
