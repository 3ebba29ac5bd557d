/**
 * Records (statements and rejections) another process committed and never told of: it died
 * between a COMMIT and its announcement (change-announcer.ts sends every 50 ms), the announcement
 * could not be sent, or this process's listening connection was down when it came
 * (change-feed.ts). Every interval this looks at the seqs settled since the previous look
 * (record-seq.ts) that no announcement covered — heard from the others, or made by this process
 * for its own writes — and tells the subscribers of the rows found there, as the announcement
 * would have: the console's live views and the forwarders hear of every record, at worst an
 * interval or two late.
 *
 * A look covers the seqs settled by the look before it, never the newest: an announcement on its
 * way (up to one announcer interval after its COMMIT) is heard before its seqs are looked at, so it
 * is not told twice. One held back for longer may be; a subscriber takes a range it has already
 * seen as nothing new.
 */
import type { StorageChange } from '../storage';
import type { PostgresDatabase } from './database';
import { settledSeq } from './record-seq';

type RecordsChange = Extract<StorageChange, { kind: 'records' }>;

/** Each Store's records with seqs in [from, to], one change per Store (its PRIMARY KEY walked per Store). */
const RECORDS_IN = `
SELECT s.id AS store_id, min(r.seq) AS from_seq, max(r.seq) AS to_seq,
       coalesce(array_agg(r.voids) FILTER (WHERE r.voids IS NOT NULL), '{}') AS voided
FROM stores AS s
CROSS JOIN LATERAL (
  SELECT seq, voids_statement_id AS voids FROM statements WHERE store_num = s.num AND seq BETWEEN $1 AND $2
  UNION ALL
  SELECT seq, NULL FROM rejections WHERE store_num = s.num AND seq BETWEEN $1 AND $2
) AS r
GROUP BY s.id`;

/** The parts of [from, to] that no range of `covered` holds, in order. */
export function uncoveredRanges(from: number, to: number, covered: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const gaps: Array<[number, number]> = [];
  let next = from;
  for (const [start, end] of [...covered].sort((a, b) => a[0] - b[0])) {
    if (end < next) continue;
    if (start > to) break;
    if (start > next) gaps.push([next, start - 1]);
    next = Math.max(next, end + 1);
    if (next > to) return gaps;
  }
  if (next <= to) gaps.push([next, to]);
  return gaps;
}

export class MissedRecords {
  /** Every seq up to here has been announced or looked at; null until started. */
  private through: number | null = null;
  /** The settled seq at the previous look: the next look goes up to it. */
  private settledAtLastLook = 0;
  /** Ranges announced above `through`. */
  private covered: Array<[number, number]> = [];
  /** The database could not be read: said once until it can again. */
  private failing = false;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly tell: (change: RecordsChange) => void,
    private readonly log: (message: string) => void,
  ) {}

  /** Records up to the settled seq now were written before this process listened: not news. */
  async start(): Promise<void> {
    this.through = this.settledAtLastLook = await settledSeq(this.db);
  }

  /** Seqs [fromSeq, toSeq] were announced, by another process or by this one. */
  cover(fromSeq: number, toSeq: number): void {
    if (this.through !== null && toSeq <= this.through) return;
    this.covered.push([fromSeq, toSeq]);
  }

  /** Tells the records settled by the previous look that no announcement covered. */
  async look(): Promise<void> {
    if (this.through === null) return;
    try {
      const upTo = this.settledAtLastLook;
      this.settledAtLastLook = await settledSeq(this.db);
      if (upTo > this.through) {
        // Read first, then tell and move on: a look that fails leaves its seqs to the next one.
        const changes: RecordsChange[] = [];
        for (const [from, to] of uncoveredRanges(this.through + 1, upTo, this.covered)) {
          const rows = await this.db.query<{ store_id: string; from_seq: number; to_seq: number; voided: string[] }>(RECORDS_IN, [from, to]);
          for (const row of rows) changes.push({ kind: 'records', storeId: row.store_id, fromSeq: row.from_seq, toSeq: row.to_seq, voided: row.voided });
        }
        this.covered = this.covered.filter(([, end]) => end > upTo);
        this.through = upTo;
        for (const change of changes) this.tell(change);
      }
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.log(`could not look for records other processes did not announce: ${String(err)}`);
      this.failing = true;
    }
  }
}
