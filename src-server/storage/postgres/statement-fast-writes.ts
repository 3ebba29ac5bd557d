/**
 * The common write of statements in one round trip: a batch of new statement ids whose Activity
 * definitions and Explorer names are either unchanged or new (nothing to merge over a kept row)
 * is written by one call of lore_insert_statements (insert-function.ts), a transaction of its
 * own. Everything else — a repeated or conflicting id, a definition or name that changes a kept
 * one, attachments, an id twice in the batch — answers null here and takes the general path
 * (statement-writes.ts), which locks and merges.
 *
 * Deciding "unchanged" needs the kept definitions and names: taken from what this process last
 * saw of them (known-rows.ts) and checked by the function against the rows (without a lock, as
 * the general path compares before it locks: a write that changes nothing is ordered before a
 * concurrent one that changes them); those it has not seen are taken as new on a first try (a
 * kept one found equal is no change) and read first, in one query, on the next.
 */
import { mergeDefinition } from '../activity-merge';
import { activityNameEntry, indexWords, latestNameEntries, searchText } from '../explorer-names';
import type { NameEntry } from '../explorer-names';
import { dedupeTerms } from '../row-values';
import type { InsertStatementsResult, StatementRow } from '../storage';
import type { PostgresDatabase } from './database';
import { statementCounts } from './ingestion';
import { KnownRows } from './known-rows';
import { TIME_LEASE_BASE } from './record-seq';
import { statementColumns } from './statement-writes';

/** A fast write done: the request's answer, the seqs its statements took (in their order), the statements they voided. */
export interface FastWritten {
  result: InsertStatementsResult;
  seqs: number[];
  voided: string[];
}

/** The ids `rows` void, in their order. */
const voidedBy = (rows: StatementRow[]): string[] => rows.flatMap((row) => (row.voidsStatementId === null ? [] : [row.voidsStatementId]));

/** A plain insert of `rows` done, their statements having taken `seqs`: every one inserted, none unchanged. */
export function plainInsertWritten(rows: StatementRow[], seqs: number[]): FastWritten {
  return { result: { ok: true, inserted: rows.map((row) => row.statementId), unchanged: [] }, seqs, voided: voidedBy(rows) };
}

type Outcome = { status: 'ok'; seqs: number[] } | { status: 'exists' | 'stale' | 'no_store'; seqs: null };

interface Kept {
  /** The kept text (a definition's JSON; a name and its words), or null when there is none. */
  value: string | null;
  /** Taken from what this process saw before: the function checks it. */
  remembered: boolean;
}

interface Unseen {
  kept: Map<string, Kept>;
  activities: string[];
  names: Array<readonly [string, string]>;
}

/**
 * statementColumns with the statements' JSON as one Buffer of UTF-8 and the byte offset where each
 * ends (lore_insert_statements' bytea and integer[]: insert-function.ts), not a text[] to escape.
 */
function statementColumnsWithBytes(rows: StatementRow[]): unknown[] {
  const [ids, statements, ...others] = statementColumns(rows);
  const texts = statements as string[];
  let total = 0;
  const ends = texts.map((text) => (total += Buffer.byteLength(text)));
  const bytes = Buffer.allocUnsafe(total);
  let at = 0;
  for (const text of texts) at += bytes.write(text, at);
  return [ids, bytes, ends, ...others];
}

/** The SQLSTATE lore_insert_statements raises for a name or definition kept meanwhile by another writer. */
const STALE_AFTER_CHECKS = 'LR001';

const nameValue = (name: string, search: string) => `${name}\u0000${search}`;

export class StatementFastWrites {
  private readonly known = new KnownRows();

  constructor(
    private readonly db: PostgresDatabase,
    private readonly beforeCommit?: () => Promise<void>,
  ) {}

  /**
   * Writes `rows` when they are a plain insert. A definition or name this process has not seen is
   * taken as new, unless `readUnseen` (a second try): then it is read first. Nothing is written
   * when it answers `again` (a kept
   * definition or name it took as unchanged or absent was not: another writer's, usually a new
   * learner or Activity in two batches at once; try again, reading them) or null (the general path
   * must write them; a missing Store too: the general path reports it).
   */
  async insert(storeId: string, rows: StatementRow[], readUnseen: boolean): Promise<FastWritten | 'again' | null> {
    if (rows.length === 0 || rows.some((row) => row.attachments?.length)) return null;
    if (new Set(rows.map((row) => row.statementId)).size !== rows.length) return null;

    const definitions = rows.flatMap((row) => (row.activityDefinitions ?? []).map((d) => ({ ...d, stored: row.stored })));
    const activityIds = [...new Set(definitions.map((d) => d.activityId))];
    const statementNames = latestNameEntries(rows.map((row) => row.statement));
    const nameKeys = [...statementNames.map((e) => [e.kind, e.value] as const), ...activityIds.map((id) => ['activity', id] as const)];
    // No wait before the write when every one is known: it takes its seq in the order it was called.
    const unseen = this.unseen(storeId, activityIds, nameKeys);
    const kept = unseen.kept;
    // Not seen yet: taken as new (the function finds an equal kept one no change, another one stale), or read first.
    if (readUnseen && (unseen.activities.length > 0 || unseen.names.length > 0)) await this.readKept(storeId, unseen);

    // Activity definitions: a new one is inserted; one that changes a kept one goes the general way.
    const current = new Map<string, { json: string | null; definition: Record<string, unknown> }>();
    const created = new Map<string, { json: string; updated: string; definition: Record<string, unknown> }>();
    const knownActivities: Array<[string, string]> = [];
    for (const { activityId, definition, stored } of definitions) {
      let entry = current.get(activityId);
      if (!entry) {
        const stored = kept.get(KnownRows.activityKey(storeId, activityId))!;
        entry = { json: stored.value, definition: stored.value === null ? {} : (JSON.parse(stored.value) as Record<string, unknown>) };
        if (stored.value !== null && stored.remembered) knownActivities.push([activityId, stored.value]);
        current.set(activityId, entry);
      }
      const merged = mergeDefinition(entry.definition, definition);
      const json = JSON.stringify(merged);
      if (json === entry.json || Object.keys(merged).length === 0) continue;
      if (kept.get(KnownRows.activityKey(storeId, activityId))!.value !== null) return null;
      current.set(activityId, { json, definition: merged });
      created.set(activityId, { json, updated: stored, definition: merged });
    }
    const newActivities = [...created].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

    // Explorer names: those of the new Activities and of the statements' agents and verbs.
    const entries: NameEntry[] = [...newActivities.flatMap(([id, { definition }]) => activityNameEntry(id, definition) ?? []), ...statementNames];
    const knownNames: Array<[string, string, string, string]> = [];
    const newNames: Array<{ kind: string; value: string; name: string; search: string }> = [];
    for (const entry of entries) {
      const search = searchText(entry.text);
      const stored = kept.get(KnownRows.nameKey(storeId, entry.kind, entry.value))!;
      if (stored.value === null) newNames.push({ kind: entry.kind, value: entry.value, name: entry.name, search });
      else if (stored.value !== nameValue(entry.name, search)) return null;
      else if (stored.remembered) knownNames.push([entry.kind, entry.value, entry.name, search]);
    }
    newNames.sort((a, b) => (a.kind === b.kind ? (a.value < b.value ? -1 : a.value > b.value ? 1 : 0) : a.kind < b.kind ? -1 : 1));
    const words = newNames.flatMap((e) => indexWords(e.search).map((word) => [e.kind, word, e.value, e.search] as const));

    // Index terms, sorted as the general path sorts them (two writers take their entries in one order).
    const postings = rows.flatMap((row, i) => dedupeTerms(row.terms).map((term) => ({ ...term, row: i + 1 })));
    const terms = [...new Map(postings.map((p) => [`${p.kind}\u0000${p.value}`, p])).values()].sort((a, b) =>
      a.kind === b.kind ? (a.value < b.value ? -1 : a.value > b.value ? 1 : 0) : a.kind < b.kind ? -1 : 1,
    );
    const termIndex = new Map(terms.map((t, i) => [`${t.kind}\u0000${t.value}`, i + 1]));

    const counts = statementCounts(rows);
    const voided = voidedBy(rows);
    const values = [
        storeId,
        TIME_LEASE_BASE + Math.min(...rows.map((row) => Date.parse(row.stored))),
        ...statementColumnsWithBytes(rows),
        voided,
        terms.map((t) => t.kind),
        terms.map((t) => t.value),
        postings.map((p) => termIndex.get(`${p.kind}\u0000${p.value}`)),
        postings.map((p) => p.row),
        postings.map((p) => p.primary),
        knownActivities.map(([id]) => id),
        knownActivities.map(([, json]) => json),
        knownNames.map((n) => n[0]),
        knownNames.map((n) => n[1]),
        knownNames.map((n) => n[2]),
        knownNames.map((n) => n[3]),
        newActivities.map(([id]) => id),
        newActivities.map(([, a]) => a.json),
        newActivities.map(([, a]) => a.updated),
        newNames.map((n) => n.kind),
        newNames.map((n) => n.value),
        newNames.map((n) => n.name),
        newNames.map((n) => n.search),
        words.map((w) => w[0]),
        words.map((w) => w[1]),
        words.map((w) => w[2]),
        words.map((w) => w[3]),
        counts.minutes.map((m) => m.minute),
        counts.minutes.map((m) => m.accepted),
        counts.minutes.map((m) => m.voided),
        counts.top.map((t) => t.unit),
        counts.top.map((t) => t.kind),
        counts.top.map((t) => t.period),
        counts.top.map((t) => t.value),
        counts.top.map((t) => t.count),
        // No notification from the write's transaction: the storage tells the others after the COMMIT (change-announcer.ts).
        null,
      ];
    const [outcome] = await this.db
      .statement<Outcome>(`SELECT status, seqs FROM lore_insert_statements(${values.map((_, i) => `$${i + 1}`).join(', ')})`, values, this.beforeCommit)
      .catch((err: unknown) => {
        // Another writer kept a different name or definition after the checks (insert-function.ts).
        if ((err as { code?: unknown }).code === STALE_AFTER_CHECKS) return [{ status: 'stale', seqs: null } satisfies Outcome];
        throw err;
      });
    if (!outcome || outcome.status !== 'ok') {
      // What this process took as kept may be wrong: read it again next time.
      this.known.forget([...activityIds.map((id) => KnownRows.activityKey(storeId, id)), ...nameKeys.map(([kind, value]) => KnownRows.nameKey(storeId, kind, value))]);
      return outcome?.status === 'stale' ? 'again' : null;
    }
    for (const [id, { json }] of newActivities) this.known.set(KnownRows.activityKey(storeId, id), json);
    for (const n of newNames) this.known.set(KnownRows.nameKey(storeId, n.kind, n.value), nameValue(n.name, n.search));
    return plainInsertWritten(rows, outcome.seqs.map(Number));
  }

  /** After a write by the general path: what it may have changed is read again next time. */
  forget(storeId: string, rows: StatementRow[]): void {
    const activityIds = rows.flatMap((row) => (row.activityDefinitions ?? []).map((d) => d.activityId));
    const names = latestNameEntries(rows.map((row) => row.statement));
    this.known.forget([
      ...activityIds.flatMap((id) => [KnownRows.activityKey(storeId, id), KnownRows.nameKey(storeId, 'activity', id)]),
      ...names.map((e) => KnownRows.nameKey(storeId, e.kind, e.value)),
    ]);
  }

  /** The kept definition or name of each key this process has seen; the others to read. */
  private unseen(storeId: string, activityIds: string[], nameKeys: ReadonlyArray<readonly [string, string]>): Unseen {
    const kept = new Map<string, Kept>();
    const activities: string[] = [];
    const names: Array<readonly [string, string]> = [];
    for (const id of activityIds) {
      const key = KnownRows.activityKey(storeId, id);
      const value = this.known.get(key);
      if (value === undefined) activities.push(id);
      kept.set(key, { value: value ?? null, remembered: value !== undefined });
    }
    for (const [kind, value] of nameKeys) {
      const key = KnownRows.nameKey(storeId, kind, value);
      const name = this.known.get(key);
      if (name === undefined) names.push([kind, value]);
      kept.set(key, { value: name ?? null, remembered: name !== undefined });
    }
    return { kept, activities, names };
  }

  /** Reads the kept rows of the keys not seen yet into `unseen.kept` (one query), and remembers them. */
  private async readKept(storeId: string, unseen: Unseen): Promise<void> {
    const rows = await this.db.query<{ kind: string | null; value: string; kept: string; search: string | null }>(
      `SELECT NULL AS kind, activity_id AS value, definition AS kept, NULL AS search FROM activities
        WHERE store_num = (SELECT num FROM stores WHERE id = $1) AND activity_id = ANY ($2::text[])
       UNION ALL
       SELECT kind, value, name, search FROM explorer_names
        WHERE store_num = (SELECT num FROM stores WHERE id = $1) AND (kind, value) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
      [storeId, unseen.activities, unseen.names.map(([kind]) => kind), unseen.names.map(([, value]) => value)],
    );
    for (const row of rows) {
      const key = row.kind === null ? KnownRows.activityKey(storeId, row.value) : KnownRows.nameKey(storeId, row.kind, row.value);
      const value = row.kind === null ? row.kept : nameValue(row.kept, row.search!);
      unseen.kept.set(key, { value, remembered: false });
      this.known.set(key, value);
    }
  }
}
