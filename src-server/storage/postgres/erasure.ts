/**
 * Forgetting a learner and a Store's retention on PostgreSQL (../erasure.ts says what is reached;
 * docs/erasure-and-retention.md). An erasure is one transaction that first locks the Store's row
 * (FOR UPDATE: every write of the Store takes it FOR SHARE, so none slips in between the rows
 * decided and their deletion), decides the rows as the embedded backend does, deletes them and
 * writes its ledger entry. A dry run is the same reads, without deleting.
 *
 * Deleting statements by seq (deleteStatementSeqs) is shared by both: the row (its copy as
 * received is a column of it), its postings (by the terms its text gives: postings are keyed by
 * term), terms left without postings and, with an agent's, the Explorer's name of that agent, the
 * verb's name when no statement of the verb is left, and attachment payloads no other statement
 * declares. Statements of others that reference a deleted one stay as they are.
 */
import { agentKeysIn, attachmentShas, countErasure, erasureKeys, keysOfRecord, jsonMentions, jsonTextMentions, newErasureRecord, NO_ERASURE_COUNTS, plainTextMentions, RETENTION_STEP_ROWS } from '../erasure';
import type { ErasureCounts, ErasureOutcome, ErasureRecord, ErasureRequest, RetentionCutoffs, RetentionStepResult } from '../erasure';
import { indexWords } from '../explorer-names';
import { StorageNotFoundError } from '../errors';
import { extractIndexTerms } from '../../xapi/index-terms';
import type { Statement } from '../../xapi/statement-schema';
import type { PostgresDatabase, Tx } from './database';

/** The Store's number, its row locked against every other write of the Store until the transaction ends. */
async function lockStore(tx: Tx, storeId: string): Promise<number> {
  const { rows } = await tx.query<{ num: number }>('SELECT num FROM stores WHERE id = $1 FOR UPDATE', [storeId]);
  if (!rows[0]) throw new StorageNotFoundError('store_not_found', `no Store with id ${storeId}`);
  return rows[0].num;
}

/** The payloads of the statements `seqs` that no other statement of the Store declares. */
async function unusedAttachments(tx: Tx, storeNum: number, seqs: readonly number[]): Promise<string[]> {
  if (seqs.length === 0) return [];
  const { rows } = await tx.query<{ statement: string }>(
    `SELECT statement FROM statements WHERE store_num = $1 AND seq = ANY($2::bigint[]) AND strpos(statement, '"attachments"') > 0`,
    [storeNum, seqs],
  );
  const shas = [...new Set(rows.flatMap((row) => attachmentShas(JSON.parse(row.statement) as Record<string, unknown>)))].sort();
  const unused: string[] = [];
  for (const sha of shas) {
    const { rows: kept } = await tx.query(
      'SELECT 1 FROM attachments AS a WHERE a.store_num = $1 AND a.sha2 = $3 AND NOT EXISTS (SELECT 1 FROM statements AS s WHERE s.store_num = $1 AND NOT (s.seq = ANY($2::bigint[])) AND strpos(s.statement, $3) > 0)',
      [storeNum, seqs, sha],
    );
    if (kept.length > 0) unused.push(sha);
  }
  return unused;
}

async function forgetNames(tx: Tx, storeNum: number, kind: string, values: readonly string[]): Promise<void> {
  if (values.length === 0) return;
  const { rows } = await tx.query<{ value: string; search: string }>(
    'DELETE FROM explorer_names WHERE store_num = $1 AND kind = $2 AND value = ANY($3::text[]) RETURNING value, search',
    [storeNum, kind, values],
  );
  for (const row of rows) {
    await tx.query('DELETE FROM explorer_name_words WHERE store_num = $1 AND kind = $2 AND word = ANY($3::text[]) AND value = $4', [storeNum, kind, indexWords(row.search), row.value]);
  }
}

/** Deletes statements by seq with everything kept with them (see above); resolves how many went. */
async function deleteStatementSeqs(tx: Tx, storeNum: number, seqs: readonly number[], attachments: readonly string[]): Promise<number> {
  if (seqs.length === 0) return 0;
  const { rows } = await tx.query<{ seq: string; statement: string; verb_id: string }>(
    'DELETE FROM statements WHERE store_num = $1 AND seq = ANY($2::bigint[]) RETURNING seq, statement, verb_id',
    [storeNum, seqs],
  );
  const postings = rows.flatMap((row) => extractIndexTerms(JSON.parse(row.statement) as Statement).terms.map((term) => ({ ...term, seq: Number(row.seq) })));
  if (postings.length > 0) {
    const { rows: touched } = await tx.query<{ id: string }>(
      `DELETE FROM term_postings AS p USING unnest($2::text[], $3::text[], $4::bigint[]) AS d(kind, value, seq), terms AS t
        WHERE t.store_num = $1 AND t.kind = d.kind AND t.value = d.value AND p.store_num = $1 AND p.term = t.id AND p.seq = d.seq
        RETURNING t.id`,
      [storeNum, postings.map((p) => p.kind), postings.map((p) => p.value), postings.map((p) => p.seq)],
    );
    const { rows: gone } = await tx.query<{ kind: string; value: string }>(
      `DELETE FROM terms AS t WHERE t.store_num = $1 AND t.id = ANY($2::bigint[])
         AND NOT EXISTS (SELECT 1 FROM term_postings AS p WHERE p.store_num = $1 AND p.term = t.id) RETURNING kind, value`,
      [storeNum, [...new Set(touched.map((row) => row.id))]],
    );
    await forgetNames(tx, storeNum, 'agent', gone.filter((term) => term.kind === 'agent').map((term) => term.value));
  }
  const verbs = [...new Set(rows.map((row) => row.verb_id))];
  const { rows: unusedVerbs } = await tx.query<{ verb: string }>(
    `SELECT v.verb FROM unnest($2::text[]) AS v(verb) WHERE NOT EXISTS (SELECT 1 FROM statements AS s WHERE s.store_num = $1 AND s.verb_id = v.verb)`,
    [storeNum, verbs],
  );
  await forgetNames(tx, storeNum, 'verb', unusedVerbs.map((row) => row.verb));
  if (attachments.length > 0) await tx.query('DELETE FROM attachments WHERE store_num = $1 AND sha2 = ANY($2::text[])', [storeNum, attachments]);
  return rows.length;
}

/** Reads what an erasure of `given` reaches; with `apply`, deletes it and writes the ledger entry. */
export async function eraseAgentsTx(tx: Tx, storeId: string, request: ErasureRequest, recorded?: ErasureRecord): Promise<ErasureOutcome> {
  const storeNum = await lockStore(tx, storeId);
  const { rows: mboxes } = await tx.query<{ value: string }>("SELECT value FROM terms WHERE store_num = $1 AND kind = 'agent' AND value LIKE 'mbox:%'", [storeNum]);
  const keyList = erasureKeys(request.keys, mboxes.map((row) => row.value));
  const keys = new Set(keyList);

  const { rows: seqRows } = await tx.query<{ seq: string }>(
    `SELECT DISTINCT p.seq FROM terms AS t JOIN term_postings AS p ON p.store_num = t.store_num AND p.term = t.id
      WHERE t.store_num = $1 AND t.kind = 'agent' AND t.value = ANY($2::text[]) ORDER BY p.seq`,
    [storeNum, keyList],
  );
  const seqs = seqRows.map((row) => Number(row.seq));
  const erased = new Set(seqs);
  const { rows: receivedRows } = await tx.query<{ seq: string; received: string }>('SELECT seq, received FROM statements WHERE store_num = $1 AND received IS NOT NULL', [storeNum]);
  const received = receivedRows.filter((row) => !erased.has(Number(row.seq)) && jsonTextMentions(row.received, keys)).map((row) => Number(row.seq));
  const { rows: rejectionRows } = await tx.query<{ seq: string; agent: string | null; payload: string }>('SELECT seq, agent, payload FROM rejections WHERE store_num = $1', [storeNum]);
  const rejections = rejectionRows.filter((row) => (row.agent !== null && keys.has(row.agent)) || jsonTextMentions(row.payload, keys)).map((row) => Number(row.seq));
  const { rows: refusalRows } = await tx.query<{ id: string; path: string; reason: string; user_agent: string | null }>(
    'SELECT id, path, reason, user_agent FROM refusals WHERE store_num = $1',
    [storeNum],
  );
  const refusals = refusalRows.filter((row) => plainTextMentions(`${row.path}\n${row.reason}\n${row.user_agent ?? ''}`, keys)).map((row) => Number(row.id));
  const { rows: launchRows } = await tx.query<{ id: string; actor: string }>('SELECT id, actor FROM bench_launches WHERE store_num = $1', [storeNum]);
  const launches = launchRows.filter((row) => jsonMentions(JSON.parse(row.actor), keys)).map((row) => row.id);
  const { rows: docRows } = await tx.query<{ kind: string; n: string }>(
    `SELECT kind, count(*) AS n FROM documents WHERE store_num = $1 AND kind IN ('state', 'agentProfile') AND agent = ANY($2::text[]) GROUP BY kind`,
    [storeNum, keyList],
  );
  const documents = new Map(docRows.map((row) => [row.kind, Number(row.n)]));
  const { rows: writeRows } = await tx.query<{ n: string }>('SELECT count(*) AS n FROM bench_document_writes WHERE store_num = $1 AND agent = ANY($2::text[])', [storeNum, keyList]);
  const attachments = await unusedAttachments(tx, storeNum, seqs);
  const counts = countErasure({ seqs, attachments, rejections, refusals, received, launches, documents, documentWrites: Number(writeRows[0]?.n ?? 0) });
  if (request.dryRun) return { dryRun: true, counts, erasure: null };

  await deleteStatementSeqs(tx, storeNum, seqs, attachments);
  await tx.query('UPDATE statements SET received = NULL WHERE store_num = $1 AND seq = ANY($2::bigint[])', [storeNum, received]);
  await tx.query('DELETE FROM rejections WHERE store_num = $1 AND seq = ANY($2::bigint[])', [storeNum, rejections]);
  await tx.query('DELETE FROM refusals WHERE store_num = $1 AND id = ANY($2::bigint[])', [storeNum, refusals]);
  await tx.query(`DELETE FROM documents WHERE store_num = $1 AND kind IN ('state', 'agentProfile') AND agent = ANY($2::text[])`, [storeNum, keyList]);
  await tx.query('DELETE FROM bench_document_writes WHERE store_num = $1 AND agent = ANY($2::text[])', [storeNum, keyList]);
  await tx.query('DELETE FROM bench_launches WHERE store_num = $1 AND id = ANY($2::text[])', [storeNum, launches]);
  // A learner's name must not stay searchable, whichever statement it was kept from.
  await forgetNames(tx, storeNum, 'agent', keyList);
  // Applied again (reapplyErasureTx): the entry as recorded, its id, salt and hashes unchanged.
  const entry = recorded ?? newErasureRecord(storeId, request.at, keyList, counts);
  await insertErasureRow(tx, entry);
  return { dryRun: false, counts, erasure: entry };
}

/** Storage.keepErasureRecord, and the ledger entry of an erasure: false when the ledger holds the id already. */
export async function insertErasureRow(tx: Tx, entry: ErasureRecord): Promise<boolean> {
  const { rowCount } = await tx.query('INSERT INTO erasures (id, store_id, at, salt, ifi_hashes, counts) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING', [
    entry.id,
    entry.storeId,
    entry.at,
    entry.salt,
    JSON.stringify(entry.ifiHashes),
    JSON.stringify(entry.counts),
  ]);
  return rowCount === 1;
}

/** Every agent key of the Store wherever it is kept: what an entry's hashes are compared with. */
async function storeAgentKeys(tx: Tx, storeNum: number): Promise<Set<string>> {
  const keys = new Set<string>();
  const { rows } = await tx.query<{ value: string | null }>(
    `SELECT value FROM terms WHERE store_num = $1 AND kind = 'agent'
     UNION SELECT agent FROM documents WHERE store_num = $1 AND agent <> ''
     UNION SELECT agent FROM rejections WHERE store_num = $1 AND agent IS NOT NULL`,
    [storeNum],
  );
  for (const row of rows) if (row.value) keys.add(row.value);
  // Where no column holds the key: rejected payloads, received copies, Test Bench launches.
  const { rows: texts } = await tx.query<{ text: string }>(
    `SELECT payload AS text FROM rejections WHERE store_num = $1
     UNION ALL SELECT received FROM statements WHERE store_num = $1 AND received IS NOT NULL
     UNION ALL SELECT actor FROM bench_launches WHERE store_num = $1`,
    [storeNum],
  );
  for (const { text } of texts) {
    try {
      agentKeysIn(JSON.parse(text), keys);
    } catch {
      // Not JSON: nothing to hash.
    }
  }
  return keys;
}

/**
 * Applies again a ledger entry the database does not hold (data restored from a dump taken before
 * the erasure): the Store's agent keys whose hash with the entry's salt the entry holds are erased,
 * and the entry is kept as recorded. Null when the ledger holds it already or its Store is gone.
 */
export async function reapplyErasureTx(tx: Tx, entry: ErasureRecord): Promise<ErasureCounts | null> {
  const { rows: held } = await tx.query('SELECT 1 FROM erasures WHERE id = $1', [entry.id]);
  if (held.length > 0) return null;
  const { rows: store } = await tx.query<{ num: number }>('SELECT num FROM stores WHERE id = $1 FOR UPDATE', [entry.storeId]);
  if (!store[0]) return null;
  const keys = keysOfRecord(entry, await storeAgentKeys(tx, store[0].num));
  const outcome = await eraseAgentsTx(tx, entry.storeId, { keys, dryRun: false, at: entry.at }, entry);
  return outcome.counts;
}

export async function listErasureRows(db: PostgresDatabase, storeId?: string): Promise<ErasureRecord[]> {
  const rows = await db.query<{ id: string; store_id: string; at: string; salt: string; ifi_hashes: string; counts: string }>(
    'SELECT id, store_id, at, salt, ifi_hashes, counts FROM erasures WHERE $1::text IS NULL OR store_id = $1 ORDER BY at, id',
    [storeId ?? null],
  );
  return rows.map((row) => ({
    id: row.id,
    storeId: row.store_id,
    at: row.at,
    salt: row.salt,
    ifiHashes: JSON.parse(row.ifi_hashes) as string[],
    counts: { ...NO_ERASURE_COUNTS, ...(JSON.parse(row.counts) as Partial<ErasureCounts>) },
  }));
}

/** The oldest keys before the cutoff, up to a step's rows, stopping at the first newer one. */
async function oldest(tx: Tx, sql: string, storeNum: number, beforeMs: number | null): Promise<number[]> {
  if (beforeMs === null) return [];
  const { rows } = await tx.query<{ key: string; ms: string }>(sql, [storeNum, RETENTION_STEP_ROWS]);
  const keys: number[] = [];
  for (const row of rows) {
    if (Number(row.ms) >= beforeMs) break;
    keys.push(Number(row.key));
  }
  return keys;
}

/** One retention step of a Store (store-retention on sql.js says how rows are picked). */
export async function retentionStepTx(tx: Tx, storeId: string, cutoffs: RetentionCutoffs): Promise<RetentionStepResult> {
  const { rows: store } = await tx.query<{ num: number }>('SELECT num FROM stores WHERE id = $1 FOR SHARE', [storeId]);
  const storeNum = store[0]?.num;
  if (storeNum === undefined) return { statements: 0, rejections: 0, refusals: 0 };
  const seqs = await oldest(tx, 'SELECT seq AS key, stored_ms AS ms FROM statements WHERE store_num = $1 ORDER BY seq LIMIT $2', storeNum, cutoffs.statementsBeforeMs);
  const rejectionSeqs = await oldest(tx, 'SELECT seq AS key, received_ms AS ms FROM rejections WHERE store_num = $1 ORDER BY seq LIMIT $2', storeNum, cutoffs.rejectionsBeforeMs);
  const refusalIds = await oldest(tx, 'SELECT id AS key, last_ms AS ms FROM refusals WHERE store_num = $1 ORDER BY id LIMIT $2', storeNum, cutoffs.refusalsBeforeMs);
  const statements = await deleteStatementSeqs(tx, storeNum, seqs, await unusedAttachments(tx, storeNum, seqs));
  const rejections = rejectionSeqs.length === 0 ? 0 : ((await tx.query('DELETE FROM rejections WHERE store_num = $1 AND seq = ANY($2::bigint[])', [storeNum, rejectionSeqs])).rowCount ?? 0);
  const refusals = refusalIds.length === 0 ? 0 : ((await tx.query('DELETE FROM refusals WHERE store_num = $1 AND id = ANY($2::bigint[])', [storeNum, refusalIds])).rowCount ?? 0);
  return { statements, rejections, refusals };
}
