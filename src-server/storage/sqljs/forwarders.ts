/**
 * Forwarders and their dead letters in the embedded database (../forwarders.ts). Every change is
 * a journal operation like any other write: a cursor advance that a crash loses only makes the
 * forwarder send that batch again, never skip one. Ids of dead letters are decided when the
 * operation is planned, so replay writes the same rows.
 */
import type {
  DeadLetterRecord,
  ForwardableStatement,
  ForwarderError,
  ForwarderPatch,
  ForwarderRecord,
  ForwarderSettlement,
} from '../forwarders';
import { settledRecord } from '../forwarders';
import type { ApplyState } from './apply-state';
import type { Row, Sql } from './sql';
import { statementText } from './statement-codec';

export type ForwarderOp =
  | { t: 'insertForwarder'; storeNum: number; record: ForwarderRecord }
  | { t: 'updateForwarder'; id: string; patch: ForwarderPatch }
  | { t: 'settleForwarderBatch'; id: string; storeNum: number; settlement: ForwarderSettlement; newDeadLetterId: number | null }
  | { t: 'deleteForwarder'; id: string }
  | { t: 'requeueDeadLetters'; forwarderId: string; ids: number[] };

export function ensureForwarderTables(sql: Sql): void {
  sql.db.exec(`
    CREATE TABLE IF NOT EXISTS forwarders (
      id TEXT PRIMARY KEY,
      store_num INTEGER NOT NULL,
      record TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS forwarders_store ON forwarders (store_num);
    CREATE TABLE IF NOT EXISTS forwarder_dead_letters (
      id INTEGER PRIMARY KEY,
      store_num INTEGER NOT NULL,
      forwarder_id TEXT NOT NULL,
      from_seq INTEGER NOT NULL,
      through_seq INTEGER NOT NULL,
      statement_ids TEXT NOT NULL,
      error TEXT NOT NULL,
      at TEXT NOT NULL,
      queued INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS forwarder_dead_letters_forwarder ON forwarder_dead_letters (forwarder_id, id);
  `);
}

// The record is one JSON column: nothing queries inside it, and a field added later needs no column.
export function findForwarderRow(sql: Sql, id: string): ForwarderRecord | null {
  const row = sql.first('SELECT record FROM forwarders WHERE id = ?', [id]);
  return row ? (JSON.parse(row[0] as string) as ForwarderRecord) : null;
}

export function listForwarderRows(sql: Sql, storeNum?: number): ForwarderRecord[] {
  const rows = storeNum === undefined ? sql.all('SELECT record FROM forwarders ORDER BY rowid') : sql.all('SELECT record FROM forwarders WHERE store_num = ? ORDER BY rowid', [storeNum]);
  return rows.map((row) => JSON.parse(row[0] as string) as ForwarderRecord);
}

function toDeadLetter(row: Row): DeadLetterRecord {
  return {
    id: row[0] as number,
    forwarderId: row[1] as string,
    fromSeq: row[2] as number,
    throughSeq: row[3] as number,
    statementIds: JSON.parse(row[4] as string) as string[],
    error: JSON.parse(row[5] as string) as ForwarderError,
    at: row[6] as string,
    queued: row[7] === 1,
  };
}

export function listDeadLetterRows(sql: Sql, forwarderId: string): DeadLetterRecord[] {
  return sql
    .all('SELECT id, forwarder_id, from_seq, through_seq, statement_ids, error, at, queued FROM forwarder_dead_letters WHERE forwarder_id = ? ORDER BY id', [forwarderId])
    .map(toDeadLetter);
}

export function settleForwarderOp(state: ApplyState, record: ForwarderRecord, settlement: ForwarderSettlement): ForwarderOp {
  const storeNum = state.storeNums.get(record.storeId) ?? 0;
  let newDeadLetterId: number | null = null;
  if (settlement.outcome === 'dead' && settlement.deadLetterId === undefined) {
    const [last] = state.sql.first('SELECT max(id) FROM forwarder_dead_letters')!;
    newDeadLetterId = ((last as number | null) ?? 0) + 1;
  }
  return { t: 'settleForwarderBatch', id: record.id, storeNum, settlement, newDeadLetterId };
}

export function requeueOp(sql: Sql, forwarderId: string, ids?: readonly number[]): ForwarderOp | null {
  const waiting = listDeadLetterRows(sql, forwarderId).filter((letter) => !letter.queued && (ids === undefined || ids.includes(letter.id)));
  return waiting.length === 0 ? null : { t: 'requeueDeadLetters', forwarderId, ids: waiting.map((letter) => letter.id) };
}

function writeRecord(sql: Sql, record: ForwarderRecord): void {
  sql.run('UPDATE forwarders SET record = ? WHERE id = ?', [JSON.stringify(record), record.id]);
}

export function applyForwarderOp(state: ApplyState, op: ForwarderOp): void {
  const { sql } = state;
  switch (op.t) {
    case 'insertForwarder':
      sql.run('INSERT INTO forwarders (id, store_num, record) VALUES (?, ?, ?)', [op.record.id, op.storeNum, JSON.stringify(op.record)]);
      return;
    case 'updateForwarder': {
      const record = findForwarderRow(sql, op.id);
      if (record) writeRecord(sql, { ...record, ...op.patch });
      return;
    }
    case 'settleForwarderBatch': {
      const record = findForwarderRow(sql, op.id);
      if (!record) return;
      const s = op.settlement;
      if (s.deadLetterId !== undefined) {
        // A redelivered dead letter: gone once delivered, kept (and no longer queued) when dead again.
        if (s.outcome === 'delivered') sql.run('DELETE FROM forwarder_dead_letters WHERE id = ?', [s.deadLetterId]);
        else sql.run('UPDATE forwarder_dead_letters SET queued = 0, error = ?, at = ? WHERE id = ?', [JSON.stringify(s.error), s.at, s.deadLetterId]);
      } else if (s.outcome === 'dead') {
        sql.run(
          'INSERT INTO forwarder_dead_letters (id, store_num, forwarder_id, from_seq, through_seq, statement_ids, error, at, queued) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)',
          [op.newDeadLetterId, op.storeNum, op.id, s.fromSeq, s.throughSeq, JSON.stringify(s.statementIds), JSON.stringify(s.error), s.at],
        );
      }
      const next = settledRecord(record, s);
      writeRecord(sql, next);
      return;
    }
    case 'deleteForwarder':
      sql.run('DELETE FROM forwarder_dead_letters WHERE forwarder_id = ?', [op.id]);
      sql.run('DELETE FROM forwarders WHERE id = ?', [op.id]);
      return;
    case 'requeueDeadLetters':
      for (const id of op.ids) sql.run('UPDATE forwarder_dead_letters SET queued = 1 WHERE id = ? AND forwarder_id = ?', [id, op.forwarderId]);
      return;
    default: {
      const unknown: never = op;
      throw new Error(`unknown forwarder operation ${JSON.stringify((unknown as { t?: unknown }).t)}`);
    }
  }
}

/** Statements of a Store by seq range, ascending, voided ones too, up to the visible seq. */
export function readForwardableRows(sql: Sql, storeNum: number, range: { afterSeq: number; throughSeq: number; limit: number }): ForwardableStatement[] {
  return sql
    .all('SELECT seq, statement_id, statement, stored, voided, key_id FROM statements WHERE store_num = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?', [
      storeNum,
      range.afterSeq,
      range.throughSeq,
      range.limit,
    ])
    .map((row) => ({ seq: row[0] as number, statementId: row[1] as string, statementJson: statementText(row[2], { statementId: row[1] as string, stored: row[3] as string, keyId: row[5] as string }), stored: row[3] as string, voided: row[4] === 1 }));
}

export function countForwardableRows(sql: Sql, storeNum: number, afterSeq: number, visibleSeq: number): number {
  const [count] = sql.first('SELECT count(*) FROM statements WHERE store_num = ? AND seq > ? AND seq <= ?', [storeNum, afterSeq, visibleSeq])!;
  return count as number;
}
