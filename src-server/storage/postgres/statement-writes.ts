/**
 * Inserting a batch of statements into PostgreSQL, in one transaction: the check against the
 * Store (repeats, conflicts), the statement rows with their seqs (record-seq.ts), index terms,
 * attachments, voiding, the Activity definitions they carry, the Explorer's names and the console's counts.
 *
 * Two processes may insert the same statement id at once. Each checks, finds nothing and inserts;
 * the unique index (store, statement id) makes the second wait for the first and then skip its
 * row (ON CONFLICT DO NOTHING), which this module turns into a retry of the whole transaction: the
 * retry finds the committed row and answers unchanged or conflict, as a single process would.
 */
import { mergeDefinition } from '../activity-merge';
import { dedupeTerms, signatureOf, signatureOfStored } from '../row-values';
import type { InsertStatementsResult, StatementRow } from '../storage';
import { RetryTransaction } from './database';
import type { Tx } from './database';
import { keepActivityNames, keepStatementNames } from './explorer-names';
import { countStatements } from './ingestion';
import { takeSeqs } from './record-seq';

/** Inserts `rows` into the Store `storeNum`; the caller runs it in a transaction. */
/** `seqs`: those of the rows inserted, ascending (none when nothing was). */
export async function insertStatementRows(tx: Tx, storeNum: number, rows: StatementRow[]): Promise<{ result: InsertStatementsResult; seqs: number[] }> {
  // Ids the LRS just made up (StatementRow.idMadeByLrs) are stored nowhere yet: a write of only
  // those (most single POSTs) saves the round trip.
  const ids = [...new Set(rows.filter((row) => !row.idMadeByLrs).map((row) => row.statementId))];
  const { rows: existingRows } =
    ids.length === 0
      ? { rows: [] }
      : await tx.query<{ statement_id: string; signature: string; statement: string | null }>(
          // The statement only where its signature was left to be computed (StatementRow.signature).
          `SELECT statement_id, signature, CASE WHEN signature = '' THEN statement END AS statement
             FROM statements WHERE store_num = $1 AND statement_id = ANY($2::text[])`,
          [storeNum, ids],
        );
  const stored = new Map(existingRows.map((row) => [row.statement_id, signatureOfStored(row.signature, () => row.statement!)]));
  const inBatch = new Map<string, StatementRow>();
  const inserted: string[] = [];
  const unchanged: string[] = [];
  const fresh: StatementRow[] = [];
  for (const [index, row] of rows.entries()) {
    const earlier = inBatch.get(row.statementId);
    const signature = earlier ? signatureOf(earlier) : stored.get(row.statementId);
    if (signature !== undefined) {
      if (signature !== signatureOf(row)) return { result: { ok: false, conflict: { index, statementId: row.statementId } }, seqs: [] };
      unchanged.push(row.statementId);
      continue;
    }
    inBatch.set(row.statementId, row);
    inserted.push(row.statementId);
    fresh.push(row);
  }
  if (fresh.length === 0) return { result: { ok: true, inserted, unchanged }, seqs: [] };

  const seqs = await takeSeqs(tx, fresh.length, Math.min(...fresh.map((row) => Date.parse(row.stored))));
  await insertRows(tx, storeNum, fresh, seqs);
  await insertTerms(tx, storeNum, fresh, seqs);
  await insertAttachments(tx, storeNum, fresh);
  const voidedIds = fresh.flatMap((row) => (row.voidsStatementId === null ? [] : [row.voidsStatementId]));
  if (voidedIds.length > 0) {
    await tx.query('UPDATE statements SET voided = true WHERE store_num = $1 AND statement_id = ANY($2::text[]) AND NOT voided', [storeNum, voidedIds]);
  }
  await keepActivityNames(tx, storeNum, await mergeActivities(tx, storeNum, fresh));
  // The Explorer's names of agents and verbs (explorer-names.ts), derived from the statements.
  await keepStatementNames(tx, storeNum, fresh);
  await countStatements(tx, storeNum, fresh);
  return { result: { ok: true, inserted, unchanged }, seqs };
}

/**
 * The statements table's columns of `rows`, one array each, in this order: statement_id, statement,
 * signature, stored, stored_ms, key_id, verb_id, registration, voids_statement_id,
 * target_statement_id, received, lrs_added, warnings.
 */
export function statementColumns(rows: StatementRow[]): unknown[][] {
  const column = <T>(pick: (row: StatementRow) => T): T[] => rows.map(pick);
  return [
    column((r) => r.statementId),
    column((r) => JSON.stringify(r.statement)),
    column((r) => r.signature ?? ''),
    column((r) => r.stored),
    column((r) => Date.parse(r.stored)),
    column((r) => r.keyId),
    column((r) => r.verbId),
    column((r) => r.registration),
    column((r) => r.voidsStatementId),
    column((r) => r.targetStatementId ?? null),
    column((r) => (r.received === undefined ? null : JSON.stringify(r.received))),
    column((r) => (r.lrsAdded === undefined ? null : r.lrsAdded.join(','))),
    column((r) => (r.warnings?.length ? JSON.stringify(r.warnings.map(({ field, message }) => ({ field, message }))) : null)),
  ];
}

async function insertRows(tx: Tx, storeNum: number, rows: StatementRow[], seqs: number[]): Promise<void> {
  const { rows: insertedRows } = await tx.query<{ statement_id: string }>(
    `INSERT INTO statements (store_num, seq, statement_id, statement, signature, stored, stored_ms, key_id, verb_id,
       registration, voided, voids_statement_id, target_statement_id, received, lrs_added, warnings)
     SELECT $1, r.seq, r.statement_id, r.statement, r.signature, r.stored, r.stored_ms, r.key_id, r.verb_id, r.registration,
       -- A voiding statement may arrive before its target (xAPI 2.0 §2.2.4.3): the target is then stored voided.
       EXISTS (SELECT 1 FROM statements AS v WHERE v.store_num = $1 AND v.voids_statement_id = r.statement_id),
       r.voids_statement_id, r.target_statement_id, r.received,
       CASE WHEN r.lrs_added IS NULL THEN NULL ELSE string_to_array(r.lrs_added, ',') END, r.warnings
     FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::text[],
       $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[])
       AS r(seq, statement_id, statement, signature, stored, stored_ms, key_id, verb_id, registration, voids_statement_id,
         target_statement_id, received, lrs_added, warnings)
     ON CONFLICT (store_num, statement_id) DO NOTHING
     RETURNING statement_id`,
    [
      storeNum,
      seqs,
      ...statementColumns(rows),
    ],
  );
  if (insertedRows.length !== rows.length) throw new RetryTransaction('a statement id of the batch was stored meanwhile by another write');
}

async function insertTerms(tx: Tx, storeNum: number, rows: StatementRow[], seqs: number[]): Promise<void> {
  const postings = rows.flatMap((row, i) => dedupeTerms(row.terms).map((term) => ({ ...term, seq: seqs[i]! })));
  if (postings.length === 0) return;
  // Sorted, so that two transactions adding the same new terms take their index entries in the
  // same order and never deadlock.
  const distinct = [...new Map(postings.map((p) => [`${p.kind}\u0000${p.value}`, p])).values()].sort((a, b) =>
    a.kind === b.kind ? (a.value < b.value ? -1 : a.value > b.value ? 1 : 0) : a.kind < b.kind ? -1 : 1,
  );
  const kinds = distinct.map((t) => t.kind);
  const values = distinct.map((t) => t.value);
  await tx.query(
    `INSERT INTO terms (store_num, kind, value) SELECT $1, t.kind, t.value FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(kind, value, n)
      ORDER BY t.n ON CONFLICT (store_num, kind, value) DO NOTHING`,
    [storeNum, kinds, values],
  );
  const { rows: ids } = await tx.query<{ id: number; kind: string; value: string }>(
    `SELECT terms.id, terms.kind, terms.value FROM unnest($2::text[], $3::text[]) AS t(kind, value)
       JOIN terms ON terms.store_num = $1 AND terms.kind = t.kind AND terms.value = t.value`,
    [storeNum, kinds, values],
  );
  const idOf = new Map(ids.map((row) => [`${row.kind}\u0000${row.value}`, row.id]));
  await tx.query(
    'INSERT INTO term_postings (store_num, term, seq, is_primary) SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::boolean[])',
    [storeNum, postings.map((p) => idOf.get(`${p.kind}\u0000${p.value}`)), postings.map((p) => p.seq), postings.map((p) => p.primary)],
  );
}

async function insertAttachments(tx: Tx, storeNum: number, rows: StatementRow[]): Promise<void> {
  const attachments = rows.flatMap((row) => row.attachments ?? []);
  for (const a of attachments) {
    await tx.query(
      'INSERT INTO attachments (store_num, sha2, content_type, content) VALUES ($1, $2, $3, $4) ON CONFLICT (store_num, sha2) DO NOTHING',
      [storeNum, a.sha2, a.contentType, Buffer.from(a.content)],
    );
  }
}

/**
 * Merges the batch's Activity definitions, in order, over the stored ones (storage.ts,
 * ActivityDefinitionRow). The stored rows are locked first, so concurrent merges of one Activity
 * apply one after the other; a definition first stored meanwhile by another write makes this
 * transaction run again, merging over it. Resolves with the definitions it changed.
 */
async function mergeActivities(tx: Tx, storeNum: number, rows: StatementRow[]): Promise<Array<{ id: string; definition: Record<string, unknown> }>> {
  const ids = [...new Set(rows.flatMap((row) => (row.activityDefinitions ?? []).map((d) => d.activityId)))].sort();
  if (ids.length === 0) return [];
  const { rows: storedRows } = await tx.query<{ activity_id: string; definition: string }>(
    'SELECT activity_id, definition FROM activities WHERE store_num = $1 AND activity_id = ANY($2::text[]) ORDER BY activity_id FOR UPDATE',
    [storeNum, ids],
  );
  const current = new Map(storedRows.map((row) => [row.activity_id, { json: row.definition as string | null, definition: JSON.parse(row.definition) as Record<string, unknown> }]));
  const existed = new Set(current.keys());
  const changed = new Map<string, { json: string; updated: string }>();
  for (const row of rows) {
    for (const { activityId, definition } of row.activityDefinitions ?? []) {
      const entry = current.get(activityId) ?? { json: null, definition: {} };
      const merged = mergeDefinition(entry.definition, definition);
      const json = JSON.stringify(merged);
      if (json === entry.json || Object.keys(merged).length === 0) continue;
      current.set(activityId, { json, definition: merged });
      changed.set(activityId, { json, updated: row.stored });
    }
  }
  for (const [activityId, { json, updated }] of changed) {
    if (existed.has(activityId)) {
      await tx.query('UPDATE activities SET definition = $3, updated = $4 WHERE store_num = $1 AND activity_id = $2', [storeNum, activityId, json, updated]);
      continue;
    }
    const { rowCount } = await tx.query(
      'INSERT INTO activities (store_num, activity_id, definition, updated) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [storeNum, activityId, json, updated],
    );
    if (rowCount === 0) throw new RetryTransaction(`the definition of ${activityId} was stored meanwhile by another write`);
  }
  return [...changed.keys()].map((id) => ({ id, definition: current.get(id)!.definition }));
}
