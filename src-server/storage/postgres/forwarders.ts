/**
 * Forwarders and their dead letters in PostgreSQL (../forwarders.ts). Several service processes
 * may share the database: a forwarder is delivered by the one process holding its lease (a row
 * lease timed by the database's clock, renewed before each batch), and a batch settles only while
 * its process still holds it, so a process that lost the lease (paused, dead) never moves a cursor
 * another has moved on. A dead process's lease runs out by itself.
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
import { StorageNotFoundError } from '../errors';
import type { PostgresDatabase } from './database';
import { settledSeq } from './record-seq';

/** The database's clock in ms: every process compares leases with the same clock. */
const NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

interface DeadLetterDbRow {
  id: number;
  forwarder_id: string;
  from_seq: number;
  through_seq: number;
  statement_ids: string;
  error: string;
  at: string;
  queued: boolean;
}

function toDeadLetter(row: DeadLetterDbRow): DeadLetterRecord {
  return {
    id: row.id,
    forwarderId: row.forwarder_id,
    fromSeq: row.from_seq,
    throughSeq: row.through_seq,
    statementIds: JSON.parse(row.statement_ids) as string[],
    error: JSON.parse(row.error) as ForwarderError,
    at: row.at,
    queued: row.queued,
  };
}

export class PostgresForwarders {
  constructor(
    private readonly db: PostgresDatabase,
    /** The Store's number, or null when there is no such Store. */
    private readonly storeNum: (storeId: string) => Promise<number | null>,
  ) {}

  async insert(record: ForwarderRecord): Promise<void> {
    const num = await this.storeNum(record.storeId);
    if (num === null) throw new StorageNotFoundError('store_not_found', `no Store with id ${record.storeId}`);
    await this.db.query('INSERT INTO forwarders (store_num, id, record) VALUES ($1, $2, $3)', [num, record.id, JSON.stringify(record)]);
  }

  async list(storeId?: string): Promise<ForwarderRecord[]> {
    let rows: Array<{ record: string }>;
    if (storeId === undefined) rows = await this.db.query('SELECT record FROM forwarders ORDER BY created');
    else {
      const num = await this.storeNum(storeId);
      if (num === null) return [];
      rows = await this.db.query('SELECT record FROM forwarders WHERE store_num = $1 ORDER BY created', [num]);
    }
    return rows.map((row) => JSON.parse(row.record) as ForwarderRecord);
  }

  async find(id: string): Promise<ForwarderRecord | null> {
    const [row] = await this.db.query<{ record: string }>('SELECT record FROM forwarders WHERE id = $1', [id]);
    return row ? (JSON.parse(row.record) as ForwarderRecord) : null;
  }

  async update(id: string, patch: ForwarderPatch): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ record: string }>('SELECT record FROM forwarders WHERE id = $1 FOR UPDATE', [id]);
      if (!rows[0]) return false;
      const record = { ...(JSON.parse(rows[0].record) as ForwarderRecord), ...patch };
      await tx.query('UPDATE forwarders SET record = $2 WHERE id = $1', [id, JSON.stringify(record)]);
      return true;
    });
  }

  async settle(id: string, s: ForwarderSettlement, leaseOwner?: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ record: string; store_num: number }>(
        `SELECT record, store_num FROM forwarders WHERE id = $1 AND ($2::text IS NULL OR (lease_owner = $2 AND lease_until > ${NOW_MS})) FOR UPDATE`,
        [id, leaseOwner ?? null],
      );
      const row = rows[0];
      if (!row) return false;
      if (s.deadLetterId !== undefined) {
        if (s.outcome === 'delivered') await tx.query('DELETE FROM forwarder_dead_letters WHERE id = $1', [s.deadLetterId]);
        else await tx.query('UPDATE forwarder_dead_letters SET queued = false, error = $2, at = $3 WHERE id = $1', [s.deadLetterId, JSON.stringify(s.error), s.at]);
      } else if (s.outcome === 'dead') {
        await tx.query(
          `INSERT INTO forwarder_dead_letters (store_num, forwarder_id, from_seq, through_seq, statement_ids, error, at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [row.store_num, id, s.fromSeq, s.throughSeq, JSON.stringify(s.statementIds), JSON.stringify(s.error), s.at],
        );
      }
      const next = settledRecord(JSON.parse(row.record) as ForwarderRecord, s);
      await tx.query('UPDATE forwarders SET record = $2 WHERE id = $1', [id, JSON.stringify(next)]);
      return true;
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await tx.query('DELETE FROM forwarder_dead_letters WHERE forwarder_id = $1', [id]);
      const { rowCount } = await tx.query('DELETE FROM forwarders WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    });
  }

  async deadLetters(forwarderId: string): Promise<DeadLetterRecord[]> {
    const rows = await this.db.query<DeadLetterDbRow>(
      'SELECT id, forwarder_id, from_seq, through_seq, statement_ids, error, at, queued FROM forwarder_dead_letters WHERE forwarder_id = $1 ORDER BY id',
      [forwarderId],
    );
    return rows.map(toDeadLetter);
  }

  async requeue(forwarderId: string, ids?: readonly number[]): Promise<number> {
    const rows = await this.db.query(
      'UPDATE forwarder_dead_letters SET queued = true WHERE forwarder_id = $1 AND NOT queued AND ($2::bigint[] IS NULL OR id = ANY($2)) RETURNING id',
      [forwarderId, ids === undefined ? null : [...ids]],
    );
    return rows.length;
  }

  async read(storeId: string, range: { afterSeq: number; throughSeq?: number; limit: number }): Promise<ForwardableStatement[]> {
    const num = await this.storeNum(storeId);
    if (num === null) return [];
    // Seqs commit out of order: only up to the settled seq is every statement there (record-seq.ts).
    const through = Math.min(range.throughSeq ?? Number.MAX_SAFE_INTEGER, await settledSeq(this.db));
    const rows = await this.db.query<{ seq: number; statement_id: string; statement: string; stored: string; voided: boolean }>(
      'SELECT seq, statement_id, statement, stored, voided FROM statements WHERE store_num = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4',
      [num, range.afterSeq, through, range.limit],
    );
    return rows.map((row) => ({ seq: row.seq, statementId: row.statement_id, statementJson: row.statement, stored: row.stored, voided: row.voided }));
  }

  async count(storeId: string, afterSeq: number): Promise<number> {
    const num = await this.storeNum(storeId);
    if (num === null) return 0;
    const through = await settledSeq(this.db);
    const [row] = await this.db.query<{ count: number }>('SELECT count(*)::bigint AS count FROM statements WHERE store_num = $1 AND seq > $2 AND seq <= $3', [
      num,
      afterSeq,
      through,
    ]);
    return row?.count ?? 0;
  }

  async lease(id: string, owner: string, ms: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE forwarders SET lease_owner = $2, lease_until = ${NOW_MS} + $3
        WHERE id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until <= ${NOW_MS}) RETURNING id`,
      [id, owner, ms],
    );
    return rows.length > 0;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.db.query('UPDATE forwarders SET lease_owner = NULL, lease_until = 0 WHERE id = $1 AND lease_owner = $2', [id, owner]);
  }
}

/** The migration that adds the tables (appended to MIGRATIONS). */
export const FORWARDERS_MIGRATION = `
CREATE TABLE forwarders (
  store_num integer NOT NULL REFERENCES stores (num) ON DELETE CASCADE,
  id text NOT NULL UNIQUE,
  created bigint GENERATED ALWAYS AS IDENTITY,
  record text NOT NULL,
  lease_owner text,
  lease_until bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (store_num, id)
);

CREATE TABLE forwarder_dead_letters (
  store_num integer NOT NULL,
  id bigint GENERATED ALWAYS AS IDENTITY,
  forwarder_id text NOT NULL,
  from_seq bigint NOT NULL,
  through_seq bigint NOT NULL,
  statement_ids text NOT NULL,
  error text NOT NULL,
  at text NOT NULL,
  queued boolean NOT NULL DEFAULT false,
  PRIMARY KEY (store_num, id)
);
CREATE INDEX forwarder_dead_letters_forwarder ON forwarder_dead_letters (forwarder_id, id);
`;
