/**
 * Console statistics in PostgreSQL: per-minute counts of accepted, voiding and rejected
 * statements, and per-hour and per-day counts of accepted statements by verb and object Activity.
 *
 * Each write appends its counts as new rows in its own transaction (never an update of a shared
 * row: concurrent writers of one Store would otherwise wait on each other's commit), and a report
 * sums the rows of its range. `foldIngestionRows` replaces the rows of past minutes, hours and
 * days by one row per key now and then, so a report reads about as many rows as on sql.js.
 */
import type { DisplayNames, IngestionQuery, IngestionStats, RejectionRow, StatementRow } from '../storage';
import { languageMap, objectActivityId } from '../statement-facts';
import type { PostgresDatabase, Tx } from './database';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const BUCKET_MINUTES = { minute: 1, hour: 60, day: 1440 } as const;

type TopKind = 'verb' | 'activity';
const TOP_KINDS: readonly TopKind[] = ['verb', 'activity'];

/** The counts a write of accepted statements appends: per minute, and per hour and day by verb and Activity. */
export interface StatementCounts {
  minutes: Array<{ minute: number; accepted: number; voided: number; rejected: number }>;
  top: Array<{ unit: 'h' | 'd'; kind: TopKind; period: number; value: string; count: number }>;
}

/** Appends the counts of accepted statements. */
export async function countStatements(tx: Tx, storeNum: number, rows: StatementRow[]): Promise<void> {
  const counts = statementCounts(rows);
  await appendMinutes(tx, storeNum, counts.minutes);
  const entries = counts.top;
  await tx.query(
    `INSERT INTO ingestion_top (store_num, unit, kind, period, value, count)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::integer[])`,
    [storeNum, entries.map((e) => e.unit), entries.map((e) => e.kind), entries.map((e) => e.period), entries.map((e) => e.value), entries.map((e) => e.count)],
  );
}

export function statementCounts(rows: StatementRow[]): StatementCounts {
  const minutes = new Map<number, { accepted: number; voided: number }>();
  const top = new Map<string, { unit: 'h' | 'd'; kind: TopKind; period: number; value: string; count: number }>();
  const addTop = (kind: TopKind, ms: number, value: string) => {
    for (const [unit, size] of [['h', HOUR_MS], ['d', DAY_MS]] as const) {
      const period = Math.floor(ms / size);
      const key = `${unit}\u0000${kind}\u0000${period}\u0000${value}`;
      const entry = top.get(key);
      if (entry) entry.count++;
      else top.set(key, { unit, kind, period, value, count: 1 });
    }
  };
  for (const row of rows) {
    const ms = Date.parse(row.stored);
    const minute = Math.floor(ms / MINUTE_MS);
    const counts = minutes.get(minute) ?? { accepted: 0, voided: 0 };
    counts.accepted++;
    if (row.voidsStatementId !== null) counts.voided++;
    minutes.set(minute, counts);
    addTop('verb', ms, row.verbId);
    const activity = objectActivityId(row.statement);
    if (activity !== null) addTop('activity', ms, activity);
  }
  return { minutes: [...minutes].map(([minute, c]) => ({ minute, accepted: c.accepted, voided: c.voided, rejected: 0 })), top: [...top.values()] };
}

/** Appends the counts of rejected statements. */
export async function countRejections(tx: Tx, storeNum: number, rows: RejectionRow[]): Promise<void> {
  const minutes = new Map<number, number>();
  for (const row of rows) {
    const minute = Math.floor(Date.parse(row.receivedAt) / MINUTE_MS);
    minutes.set(minute, (minutes.get(minute) ?? 0) + 1);
  }
  await appendMinutes(tx, storeNum, [...minutes].map(([minute, rejected]) => ({ minute, accepted: 0, voided: 0, rejected })));
}

async function appendMinutes(tx: Tx, storeNum: number, rows: Array<{ minute: number; accepted: number; voided: number; rejected: number }>): Promise<void> {
  await tx.query(
    `INSERT INTO ingestion_minutes (store_num, minute, accepted, voided, rejected)
     SELECT $1, * FROM unnest($2::bigint[], $3::integer[], $4::integer[], $5::integer[])`,
    [storeNum, rows.map((r) => r.minute), rows.map((r) => r.accepted), rows.map((r) => r.voided), rows.map((r) => r.rejected)],
  );
}

/** The fold's lock: a transaction-scoped advisory lock (two-int form: objsubid 2 in pg_locks). */
const FOLD_LOCK = [0x4c6f7265, 2] as const; // "Lore", 2
/** How far behind the running totals are kept: the fold moves them to the minutes before the last hour. */
const TOTAL_BEHIND_MINUTES = 60;
/**
 * A write with a time older than this may land where a Store's total has passed: fifteen minutes
 * short of the totals' hour, so that the clocks of the processes may differ by that much.
 */
const BEHIND_TOTAL_MS = (TOTAL_BEHIND_MINUTES - 15) * MINUTE_MS;

/**
 * Waits for a fold under way and keeps the next one from starting until `tx` ends (the fold only
 * tries the lock, and skips its turn). Emptying or deleting a Store takes it, so that no fold makes
 * a total from minutes that are being deleted; so does dropping a total.
 */
export async function holdFold(tx: Tx): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1, $2)', [...FOLD_LOCK]);
}

/** Whether a write of records with these times (ISO) may have appended minutes a Store's total has passed. */
export function behindStoreTotal(times: readonly string[], nowMs: number): boolean {
  return times.some((time) => Date.parse(time) < nowMs - BEHIND_TOTAL_MS);
}

/**
 * Drops a Store's running total after a write that appended minutes it may have passed (an import
 * keeps the source's `stored`): its count then reads all of its minutes, exact, until the next
 * fold sums them again. Done after that write commits, so the fold that sums them sees its rows; a
 * process that dies in between leaves the total short until the hourly fold of every period.
 */
export async function dropStoreTotal(db: PostgresDatabase, storeId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await holdFold(tx);
    await tx.query('DELETE FROM ingestion_totals WHERE store_num = (SELECT num FROM stores WHERE id = $1)', [storeId]);
  });
}

/**
 * The statements and rejections of one Store (`storeId`) or of every Store (null). A Store's
 * statements are its total of the minutes the fold has passed (`ingestion_totals`) and the sum of
 * its minutes since, which the fold keeps to about an hour: a year of minutes is not read at each
 * count (a statement is never deleted but with its Store's rows, counts included). Rejections are
 * counted from their table, which retention keeps bounded.
 */
export async function storeCountRows(db: PostgresDatabase, storeId: string | null): Promise<{ statements: number; rejections: number }> {
  const [row] = await db.query<{ statements: number; rejections: number }>(
    `SELECT coalesce(sum(coalesce(t.accepted, 0) + coalesce((
              SELECT sum(m.accepted) FROM ingestion_minutes AS m WHERE m.store_num = s.num AND m.minute >= coalesce(t.through_minute, 0)), 0)), 0)::bigint AS statements,
            coalesce(sum((SELECT count(*) FROM rejections AS r WHERE r.store_num = s.num)), 0)::bigint AS rejections
       FROM stores AS s LEFT JOIN ingestion_totals AS t ON t.store_num = s.num
      WHERE $1::text IS NULL OR s.id = $1`,
    [storeId],
  );
  return { statements: row?.statements ?? 0, rejections: row?.rejections ?? 0 };
}

/**
 * What a fold looks at: `recent` — the last hour of minutes and the current and previous hour and
 * day of the top lists, where the writes append (their times are the LRS's own clock), read by
 * index; `all` — every period, for anything appended elsewhere, reading the whole tables.
 */
export type FoldScope = 'recent' | 'all';

/**
 * Folds the rows of each key into one: minutes older than the current one, and every hour and day
 * of the top lists, the current ones included — under steady writes a call appends ~20 top-list
 * rows, so the current day's would otherwise grow by millions until it ends, each report summing
 * them. One process at a time (a transaction-scoped advisory lock; the others skip); writers are
 * not held: they only append, and a row appended during the fold is left for the next one.
 *
 * Then each Store's total (storeCountRows) moves on (moveStoreTotals). A write that appends behind
 * a total drops it (dropStoreTotal); one that does so unseen (a process whose clock is behind the
 * others' by more than a quarter of an hour) is counted from the next `all`.
 */
export async function foldIngestionRows(db: PostgresDatabase, scope: FoldScope, nowMs = Date.now()): Promise<void> {
  const minute = Math.floor(nowMs / MINUTE_MS);
  // From the start of time, or the recent periods only: index ranges on (minute) and on (unit, kind, period).
  const fromMinute = scope === 'recent' ? minute - 60 : 0;
  const fromHour = scope === 'recent' ? Math.floor(nowMs / HOUR_MS) - 1 : 0;
  const fromDay = scope === 'recent' ? Math.floor(nowMs / DAY_MS) - 1 : 0;
  const minutes = 'minute >= $1 AND minute < $2';
  const top = `(unit = 'h' AND kind = ANY ($3::text[]) AND period >= $1 OR unit = 'd' AND kind = ANY ($3::text[]) AND period >= $2)`;
  await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS locked', [...FOLD_LOCK]);
    if (!rows[0]?.locked) return;
    await tx.query(
      `WITH gone AS (
         DELETE FROM ingestion_minutes WHERE ${minutes}
           AND (store_num, minute) IN (SELECT store_num, minute FROM ingestion_minutes WHERE ${minutes} GROUP BY 1, 2 HAVING count(*) > 1)
         RETURNING *)
       INSERT INTO ingestion_minutes (store_num, minute, accepted, voided, rejected)
       SELECT store_num, minute, sum(accepted), sum(voided), sum(rejected) FROM gone GROUP BY store_num, minute`,
      [fromMinute, minute],
    );
    await tx.query(
      `WITH gone AS (
         DELETE FROM ingestion_top WHERE ${top} AND (store_num, unit, kind, period, value) IN (
           SELECT store_num, unit, kind, period, value FROM ingestion_top WHERE ${top} GROUP BY 1, 2, 3, 4, 5 HAVING count(*) > 1)
         RETURNING *)
       INSERT INTO ingestion_top (store_num, unit, kind, period, value, count)
       SELECT store_num, unit, kind, period, value, sum(count) FROM gone GROUP BY 1, 2, 3, 4, 5`,
      [fromHour, fromDay, TOP_KINDS],
    );
    await moveStoreTotals(tx, scope, nowMs);
  });
}

/**
 * Moves each Store's running total up to the minutes before the last hour (as of `nowMs`):
 * `recent` adds the minutes it passes, and a Store without a total (new, or dropped by
 * dropStoreTotal) sums them all; `all` sums them all for every Store. The fold's last step, and
 * the step of the migration that made the totals.
 */
export async function moveStoreTotals(tx: Tx, scope: FoldScope, nowMs: number): Promise<void> {
  await tx.query(
    `INSERT INTO ingestion_totals (store_num, through_minute, accepted)
     SELECT s.num, CASE WHEN $2::boolean OR t.store_num IS NULL THEN $1::bigint ELSE greatest(t.through_minute, $1) END,
            CASE WHEN $2 OR t.store_num IS NULL
              THEN coalesce((SELECT sum(m.accepted) FROM ingestion_minutes AS m WHERE m.store_num = s.num AND m.minute < $1), 0)
              ELSE t.accepted + coalesce((SELECT sum(m.accepted) FROM ingestion_minutes AS m
                                           WHERE m.store_num = s.num AND m.minute >= t.through_minute AND m.minute < $1), 0) END
       FROM stores AS s LEFT JOIN ingestion_totals AS t ON t.store_num = s.num
     ON CONFLICT (store_num) DO UPDATE SET through_minute = excluded.through_minute, accepted = excluded.accepted`,
    [Math.floor(nowMs / MINUTE_MS) - TOTAL_BEHIND_MINUTES, scope === 'all'],
  );
}

/**
 * The report of one Store (`storeNum`) or of every Store (null), as on sql.js: `since` and
 * `until` are bucket starts; top lists count the whole hours the range touches.
 */
export async function ingestionReportRows(db: PostgresDatabase, storeNum: number | null, query: IngestionQuery): Promise<IngestionStats> {
  const sinceMs = Date.parse(query.since);
  const untilMs = Date.parse(query.until);
  const size = BUCKET_MINUTES[query.bucket];
  const storeFilter = storeNum === null ? '' : 'store_num = $4 AND ';
  const storeParam = storeNum === null ? [] : [storeNum];

  const totals = { accepted: 0, voided: 0, rejected: 0 };
  const series: IngestionStats['series'] = [];
  const buckets = await db.query<{ bucket: number; accepted: number; voided: number; rejected: number }>(
    `SELECT minute / $1 AS bucket, sum(accepted)::bigint AS accepted, sum(voided)::bigint AS voided, sum(rejected)::bigint AS rejected
       FROM ingestion_minutes WHERE ${storeFilter}minute >= $2 AND minute < $3 GROUP BY bucket ORDER BY bucket`,
    [size, Math.floor(sinceMs / MINUTE_MS), Math.ceil(untilMs / MINUTE_MS), ...storeParam],
  );
  for (const b of buckets) {
    series.push({ start: new Date(b.bucket * size * MINUTE_MS).toISOString(), accepted: b.accepted, rejected: b.rejected });
    totals.accepted += b.accepted;
    totals.voided += b.voided;
    totals.rejected += b.rejected;
  }

  // The hours the range touches: whole days from the day rows, the hours around them from the hour rows.
  const fromHour = Math.floor(sinceMs / HOUR_MS);
  const toHour = Math.ceil(untilMs / HOUR_MS);
  const fromDay = Math.ceil(fromHour / 24);
  const toDay = Math.max(fromDay, Math.floor(toHour / 24));
  const ranges: Array<[unit: 'h' | 'd', from: number, to: number]> =
    fromDay < toDay
      ? [
          ['h', fromHour, fromDay * 24],
          ['d', fromDay, toDay],
          ['h', toDay * 24, toHour],
        ]
      : [['h', fromHour, toHour]];
  const top = async (kind: TopKind) => {
    const parts: string[] = [];
    const values: unknown[] = [kind, query.top, ...storeParam];
    for (const [unit, from, to] of ranges) {
      if (from >= to) continue;
      values.push(unit, from, to);
      const n = values.length;
      parts.push(
        `SELECT value, count FROM ingestion_top WHERE ${storeNum === null ? '' : 'store_num = $3 AND '}unit = $${n - 2} AND kind = $1 AND period >= $${n - 1} AND period < $${n}`,
      );
    }
    if (parts.length === 0) return [];
    const rows = await db.query<{ value: string; n: number }>(
      `SELECT value, sum(count)::bigint AS n FROM (${parts.join(' UNION ALL ')}) AS p GROUP BY value ORDER BY n DESC, value COLLATE "C" LIMIT $2`,
      values,
    );
    return rows.map((row) => ({ id: row.value, count: row.n }));
  };
  return { series, totals, topVerbs: await top('verb'), topActivities: await top('activity') };
}

/**
 * Display names for the top lists (Storage.displayNames): a verb's `display` from the newest
 * statement with it (through the verb index), an Activity's `name` from its kept definition,
 * looking in `storeNums` in order until one knows it.
 */
export async function displayNameRows(db: PostgresDatabase, storeNums: number[], verbIds: string[], activityIds: string[]): Promise<DisplayNames> {
  const names: DisplayNames = { verbs: {}, activities: {} };
  for (const verbId of verbIds) {
    for (const storeNum of storeNums) {
      const [row] = await db.query<{ display: string | null }>(
        `SELECT (statement::jsonb -> 'verb' -> 'display')::text AS display FROM statements
          WHERE store_num = $1 AND verb_id = $2 ORDER BY seq DESC LIMIT 1`,
        [storeNum, verbId],
      );
      const display = row?.display ? languageMap(JSON.parse(row.display)) : null;
      if (display) {
        names.verbs[verbId] = display;
        break;
      }
    }
  }
  for (const activityId of activityIds) {
    for (const storeNum of storeNums) {
      const [row] = await db.query<{ name: string | null }>(
        "SELECT (definition::jsonb -> 'name')::text AS name FROM activities WHERE store_num = $1 AND activity_id = $2",
        [storeNum, activityId],
      );
      const name = row?.name ? languageMap(JSON.parse(row.name)) : null;
      if (name) {
        names.activities[activityId] = name;
        break;
      }
    }
  }
  return names;
}
