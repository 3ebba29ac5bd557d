/**
 * Ingestion statistics in the embedded database: per-minute counts of accepted, voiding and
 * rejected statements, and per-hour and per-day counts of accepted statements by verb and by
 * object Activity.
 *
 * The counts come from the same journal records as the statements and rejections they count:
 * applying a record adds to PendingIngestion, which writes them to the tables in a few upserts per
 * many statements (five per statement made them a third of a single insert's SQL work). They are
 * derived data: a crash loses only counts whose records replay counts again. Flushed before
 * anything reads or copies them (a report, a snapshot or backup image), before a Store's rows are
 * deleted, and whenever PENDING_LIMIT keys wait (flushPendingIngestion). A report reads a few
 * thousand aggregate rows instead of scanning a million statements; their size depends on time and
 * on the number of distinct verbs and activities, not on the number of statements.
 */
import type { DisplayNames, IngestionQuery, IngestionStats, RejectionRow, StatementRow } from '../storage';
import type { Sql } from './sql';
import { STATEMENT_AND_CONTEXT, STATEMENT_TEXT_SQL, statementTextAt } from './statement-codec';
import { languageMap, objectActivityId } from '../statement-facts';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const BUCKET_MINUTES = { minute: 1, hour: 60, day: 1440 } as const;

type TopKind = 'verb' | 'activity';

/** A top-list table: accepted statements by verb and by object Activity per period of `unitMs`. */
function topTable(name: string, unitMs: number): { name: string; create: string; backfill: string } {
  return {
    name,
    create: `
CREATE TABLE ${name} (
  store_num INTEGER NOT NULL,
  kind TEXT NOT NULL,
  period INTEGER NOT NULL,
  value TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (store_num, kind, period, value)
) WITHOUT ROWID;
CREATE INDEX ${name}_time ON ${name} (kind, period);`,
    backfill: `
INSERT INTO ${name} (store_num, kind, period, value, count)
SELECT store_num, 'verb', stored_ms / ${unitMs}, verb_id, count(*) FROM statements GROUP BY 1, 3, 4;
INSERT INTO ${name} (store_num, kind, period, value, count)
SELECT store_num, 'activity', stored_ms / ${unitMs}, json_extract(${STATEMENT_TEXT_SQL}, '$.object.id'), count(*) FROM statements
WHERE coalesce(json_extract(${STATEMENT_TEXT_SQL}, '$.object.objectType'), 'Activity') = 'Activity'
  AND json_type(${STATEMENT_TEXT_SQL}, '$.object.id') = 'text'
GROUP BY 1, 3, 4;`,
  };
}

/**
 * Each table, with the statements that rebuild it from the rows for a database written before it
 * existed. Run at open, before the journal is replayed: replay then counts its own records.
 */
const TABLES = [
  {
    name: 'ingestion_minutes',
    create: `
CREATE TABLE ingestion_minutes (
  store_num INTEGER NOT NULL,
  minute INTEGER NOT NULL,
  accepted INTEGER NOT NULL,
  voided INTEGER NOT NULL,
  rejected INTEGER NOT NULL,
  PRIMARY KEY (store_num, minute)
) WITHOUT ROWID;
CREATE INDEX ingestion_minutes_time ON ingestion_minutes (minute);`,
    backfill: `
INSERT INTO ingestion_minutes (store_num, minute, accepted, voided, rejected)
SELECT store_num, minute, sum(a), sum(v), sum(r) FROM (
  SELECT store_num, stored_ms / ${MINUTE_MS} AS minute, 1 AS a, voids_statement_id IS NOT NULL AS v, 0 AS r FROM statements
  UNION ALL
  SELECT store_num, received_ms / ${MINUTE_MS}, 0, 0, 1 FROM rejections
) GROUP BY store_num, minute;`,
  },
  // Hours for the edges of a range, days for its whole days: a 30-day top list reads about 30
  // rows per verb or activity, not 720.
  topTable('ingestion_top_hours', HOUR_MS),
  topTable('ingestion_top_days', DAY_MS),
];

/** Created at open when missing (the schema version stays 1: nothing older reads these tables). */
export function ensureIngestionTables(sql: Sql): void {
  for (const table of TABLES) {
    if (sql.first("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [table.name])) continue;
    sql.transaction(() => {
      sql.db.exec(table.create);
      sql.db.exec(table.backfill);
    });
  }
}

const UPSERT_MINUTE = `INSERT INTO ingestion_minutes (store_num, minute, accepted, voided, rejected) VALUES (?, ?, ?, ?, ?)
 ON CONFLICT (store_num, minute) DO UPDATE SET accepted = accepted + excluded.accepted, voided = voided + excluded.voided,
 rejected = rejected + excluded.rejected`;
const upsertTop = (table: string) => `INSERT INTO ${table} (store_num, kind, period, value, count) VALUES (?, ?, ?, ?, ?)
 ON CONFLICT (store_num, kind, period, value) DO UPDATE SET count = count + excluded.count`;
const UPSERT_TOP_HOUR = upsertTop('ingestion_top_hours');
const UPSERT_TOP_DAY = upsertTop('ingestion_top_days');

/**
 * Counts per (Store, kind, period, value), summed until they are written: one upsert per distinct
 * key. Nested maps rather than one map keyed by the four joined: the value comes straight from the
 * statement, and a joined key would be a new string to build and hash twice a statement (hour and
 * day), where the value's own hash is computed once and kept.
 */
class TopTally {
  private readonly counts = new Map<number, Map<TopKind, Map<number, Map<string, number>>>>();
  size = 0;

  add(storeNum: number, kind: TopKind, period: number, value: string): void {
    let byKind = this.counts.get(storeNum);
    if (!byKind) this.counts.set(storeNum, (byKind = new Map()));
    let byPeriod = byKind.get(kind);
    if (!byPeriod) byKind.set(kind, (byPeriod = new Map()));
    let byValue = byPeriod.get(period);
    if (!byValue) byPeriod.set(period, (byValue = new Map()));
    const count = byValue.get(value);
    if (count === undefined) this.size++;
    byValue.set(value, (count ?? 0) + 1);
  }

  /** Each key with its count, as the upsert's parameters. */
  *rows(): Generator<[number, TopKind, number, string, number]> {
    for (const [storeNum, byKind] of this.counts) {
      for (const [kind, byPeriod] of byKind) {
        for (const [period, byValue] of byPeriod) for (const [value, count] of byValue) yield [storeNum, kind, period, value, count];
      }
    }
  }

  clear(): void {
    this.counts.clear();
    this.size = 0;
  }
}

/** Past this many waiting keys, the counts are written before the next operation. */
const PENDING_LIMIT = 5_000;

/** Counts applied (statements, rejections) and not yet written to the ingestion tables. */
export class PendingIngestion {
  private readonly minutes = new Map<string, { storeNum: number; minute: number; accepted: number; voided: number; rejected: number }>();
  private readonly hours = new TopTally();
  private readonly days = new TopTally();

  get size(): number {
    return this.minutes.size + this.hours.size + this.days.size;
  }

  get full(): boolean {
    return this.size >= PENDING_LIMIT;
  }

  /** The rows of an `insertStatements` operation (applyInsertStatements). */
  addStatements(storeNum: number, rows: ReadonlyArray<Pick<StatementRow, 'stored' | 'voidsStatementId' | 'verbId' | 'statement'>>): void {
    for (const row of rows) {
      const ms = Date.parse(row.stored);
      const counts = this.minuteOf(storeNum, Math.floor(ms / MINUTE_MS));
      counts.accepted++;
      if (row.voidsStatementId !== null) counts.voided++;
      this.addTop(storeNum, 'verb', ms, row.verbId);
      const activity = objectActivityId(row.statement);
      if (activity !== null) this.addTop(storeNum, 'activity', ms, activity);
    }
  }

  /** The rows of an `insertRejections` operation (applyInsertRejections). */
  addRejections(storeNum: number, rows: ReadonlyArray<Pick<RejectionRow, 'receivedAt'>>): void {
    for (const row of rows) this.minuteOf(storeNum, Math.floor(Date.parse(row.receivedAt) / MINUTE_MS)).rejected++;
  }

  /** Writes every waiting count. The caller runs it in a transaction; on a throw nothing is forgotten. */
  writeTo(sql: Sql): void {
    for (const m of this.minutes.values()) sql.run(UPSERT_MINUTE, [m.storeNum, m.minute, m.accepted, m.voided, m.rejected]);
    for (const row of this.hours.rows()) sql.run(UPSERT_TOP_HOUR, row);
    for (const row of this.days.rows()) sql.run(UPSERT_TOP_DAY, row);
  }

  clear(): void {
    this.minutes.clear();
    this.hours.clear();
    this.days.clear();
  }

  private minuteOf(storeNum: number, minute: number) {
    const key = `${storeNum}\u0000${minute}`;
    let counts = this.minutes.get(key);
    if (!counts) {
      counts = { storeNum, minute, accepted: 0, voided: 0, rejected: 0 };
      this.minutes.set(key, counts);
    }
    return counts;
  }

  private addTop(storeNum: number, kind: TopKind, ms: number, value: string): void {
    const hour = Math.floor(ms / HOUR_MS);
    const day = Math.floor(ms / DAY_MS);
    this.hours.add(storeNum, kind, hour, value);
    this.days.add(storeNum, kind, day, value);
  }
}

/** Writes the waiting counts in one transaction (outside any operation's own). */
export function flushPendingIngestion(sql: Sql, pending: PendingIngestion): void {
  if (pending.size === 0) return;
  sql.transaction(() => pending.writeTo(sql));
  pending.clear();
}

/**
 * Before applying `op`: the counts wait no longer when the operation deletes a Store's rows (its
 * counts must be in the tables it empties) or when too many keys wait.
 */
export function flushPendingIngestionBefore(sql: Sql, pending: PendingIngestion, op: { t: string }): void {
  if (op.t === 'emptyStore' || op.t === 'deleteStore' || pending.full) flushPendingIngestion(sql, pending);
}

/**
 * The report of one Store (`storeNum`) or of every Store (null). `since` and `until` are bucket
 * starts (the caller aligns them); top lists count the whole hours the range touches.
 */
export function ingestionReportRows(sql: Sql, storeNum: number | null, query: IngestionQuery): IngestionStats {
  const sinceMs = Date.parse(query.since);
  const untilMs = Date.parse(query.until);
  const size = BUCKET_MINUTES[query.bucket];
  const storeFilter = storeNum === null ? '' : 'store_num = ? AND ';
  const storeParam = storeNum === null ? [] : [storeNum];

  const totals = { accepted: 0, voided: 0, rejected: 0 };
  const series: IngestionStats['series'] = [];
  // Buckets count from the epoch in whole minutes, so hours and days start on UTC boundaries.
  for (const [bucket, accepted, voided, rejected] of sql.all(
    `SELECT minute / ${size} AS bucket, sum(accepted), sum(voided), sum(rejected) FROM ingestion_minutes
     WHERE ${storeFilter}minute >= ? AND minute < ? GROUP BY bucket ORDER BY bucket`,
    [...storeParam, Math.floor(sinceMs / MINUTE_MS), Math.ceil(untilMs / MINUTE_MS)],
  )) {
    series.push({
      start: new Date((bucket as number) * size * MINUTE_MS).toISOString(),
      accepted: accepted as number,
      rejected: rejected as number,
    });
    totals.accepted += accepted as number;
    totals.voided += voided as number;
    totals.rejected += rejected as number;
  }

  // The hours the range touches: whole days from the day table, the hours around them from the hour table.
  const fromHour = Math.floor(sinceMs / HOUR_MS);
  const toHour = Math.ceil(untilMs / HOUR_MS);
  const fromDay = Math.ceil(fromHour / 24);
  const toDay = Math.max(fromDay, Math.floor(toHour / 24));
  const parts: string[] = [];
  const partParams: Array<number | string> = [];
  const part = (table: string, from: number, to: number, kind: TopKind) => {
    if (from >= to) return;
    parts.push(`SELECT value, count FROM ${table} WHERE ${storeFilter}kind = ? AND period >= ? AND period < ?`);
    partParams.push(...storeParam, kind, from, to);
  };
  const top = (kind: TopKind) => {
    parts.length = 0;
    partParams.length = 0;
    if (fromDay < toDay) {
      part('ingestion_top_hours', fromHour, fromDay * 24, kind);
      part('ingestion_top_days', fromDay, toDay, kind);
      part('ingestion_top_hours', toDay * 24, toHour, kind);
    } else {
      part('ingestion_top_hours', fromHour, toHour, kind);
    }
    if (parts.length === 0) return [];
    return sql
      .all(`SELECT value, sum(count) AS n FROM (${parts.join(' UNION ALL ')}) GROUP BY value ORDER BY n DESC, value LIMIT ?`, [
        ...partParams,
        query.top,
      ])
      .map(([id, count]) => ({ id: id as string, count: count as number }));
  };

  return { series, totals, topVerbs: top('verb'), topActivities: top('activity') };
}

/**
 * Display names for the top lists (Storage.displayNames): a verb's `display` from the newest
 * visible statement with it (by the verb index), an Activity's `name` from its kept definition,
 * looking in `storeNums` in order until one knows it.
 */
export function displayNameRows(sql: Sql, storeNums: number[], verbIds: string[], activityIds: string[], visibleSeq: number): DisplayNames {
  const names: DisplayNames = { verbs: {}, activities: {} };
  for (const verbId of verbIds) {
    for (const storeNum of storeNums) {
      const row = sql.first(
        `SELECT ${STATEMENT_AND_CONTEXT} FROM statements INDEXED BY statements_verb
          WHERE store_num = ? AND verb_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1`,
        [storeNum, verbId, visibleSeq],
      );
      const display = row ? languageMap((JSON.parse(statementTextAt(row, 0)) as { verb?: { display?: unknown } }).verb?.display) : null;
      if (display) {
        names.verbs[verbId] = display;
        break;
      }
    }
  }
  for (const activityId of activityIds) {
    for (const storeNum of storeNums) {
      const row = sql.first("SELECT json_extract(definition, '$.name') FROM activities WHERE store_num = ? AND activity_id = ?", [storeNum, activityId]);
      const name = row && typeof row[0] === 'string' ? languageMap(JSON.parse(row[0])) : null;
      if (name) {
        names.activities[activityId] = name;
        break;
      }
    }
  }
  return names;
}
