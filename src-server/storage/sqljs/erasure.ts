/**
 * Forgetting a learner in the embedded database (../erasure.ts says what is reached). The check
 * decides every row that goes — statement seqs, attachment payloads, rejection seqs, refusal ids,
 * received copies, documents by agent key, Test Bench rows — and the `eraseAgents` record carries
 * them with the ledger entry, so replay deletes exactly the same rows, in one SQL transaction.
 * A dry run is the same check without the record: its counts are what the erasure would remove.
 *
 * The ledger (`erasures`) is keyed by Store id, not number: an entry outlives emptying and
 * deleting its Store, as the record that the erasure happened.
 */
import { agentKeysIn, countErasure, erasureKeys, identifyingTexts, jsonMentions, jsonTextMentions, NO_ERASURE_COUNTS, plainTextMentions } from '../erasure';
import type { ErasureCounts, ErasureRecord } from '../erasure';
import { agentKey } from '../../xapi/agent-key';
import type { Agent } from '../../xapi/statement-schema';
import type { ApplyState } from './apply-state';
import type { Row, Sql } from './sql';
import { STATEMENT_AND_CONTEXT, receivedText, statementTextAt } from './statement-codec';
import { deleteStatementRows, forgetName, unusedAttachments } from './statement-deletion';

export interface EraseAgentsOp {
  t: 'eraseAgents';
  storeNum: number;
  /** Every agent key reached (documents, Test Bench State writes and names go by key). */
  keys: string[];
  seqs: number[];
  attachments: string[];
  rejections: number[];
  refusals: number[];
  /** Statements whose copy as received is removed (the statement stays). */
  received: number[];
  launches: string[];
  entry: ErasureRecord;
}

/** The ledger, created at open when missing; a partial index finds the few received copies. */
export function ensureErasureTables(sql: Sql): void {
  sql.db.exec(`
    CREATE TABLE IF NOT EXISTS erasures (
      id TEXT PRIMARY KEY,
      store_id TEXT NOT NULL,
      at TEXT NOT NULL,
      salt TEXT NOT NULL,
      ifi_hashes TEXT NOT NULL,
      counts TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS statements_received ON statements (store_num) WHERE received IS NOT NULL;`);
}

/** The Store's agent keys wherever they are kept (what a restore hashes to find an erased learner). */
export function storeAgentKeys(sql: Sql, storeNum: number): Set<string> {
  const keys = new Set<string>();
  const add = (rows: Row[]) => rows.forEach(([value]) => typeof value === 'string' && value !== '' && keys.add(value));
  add(sql.all("SELECT value FROM terms WHERE store_num = ? AND kind = 'agent'", [storeNum]));
  add(sql.all('SELECT DISTINCT agent FROM documents WHERE store_num = ?', [storeNum]));
  add(sql.all('SELECT DISTINCT agent FROM rejections WHERE store_num = ? AND agent IS NOT NULL', [storeNum]));
  // Where no column holds the key: rejected payloads, received copies, Test Bench launches.
  const texts = [
    ...sql.all('SELECT payload FROM rejections INDEXED BY rejections_store WHERE store_num = ?', [storeNum]),
    ...receivedTexts(sql, storeNum).map(([, text]) => [text]),
    ...sql.all('SELECT actor FROM bench_launches WHERE store_num = ?', [storeNum]),
  ];
  for (const [text] of texts) {
    try {
      agentKeysIn(JSON.parse(text as string), keys);
    } catch {
      // Not JSON: nothing to hash.
    }
  }
  return keys;
}

/** The Store's statements kept as received: seq and the JSON text as received (statement-codec.ts). */
function receivedTexts(sql: Sql, storeNum: number): Array<[number, string]> {
  return sql
    .all(`SELECT seq, received, ${STATEMENT_AND_CONTEXT} FROM statements INDEXED BY statements_received WHERE store_num = ? AND received IS NOT NULL`, [storeNum])
    .map((row) => [row[0] as number, receivedText(row[1], statementTextAt(row, 2))!]);
}

/** What erasing `given` from the Store removes, and the record that removes it. */
export function planEraseAgents(state: ApplyState, storeNum: number, given: readonly string[]): { counts: ErasureCounts; op: Omit<EraseAgentsOp, 'entry'> } {
  const { sql } = state;
  const mboxes = sql.all("SELECT value FROM terms WHERE store_num = ? AND kind = 'agent' AND value >= 'mbox:' AND value < 'mbox;'", [storeNum]);
  const keyList = erasureKeys(given, mboxes.map(([value]) => value as string));
  const keys = new Set(keyList);
  const inKeys = JSON.stringify(keyList);

  // Statements: every posting of the keys' terms, primary or related (what related_agents finds).
  const seqs = sql
    .all(
      `SELECT DISTINCT p.seq FROM terms AS t CROSS JOIN term_postings AS p ON p.term = t.id
        WHERE t.store_num = ? AND t.kind = 'agent' AND t.value IN (SELECT value FROM json_each(?)) ORDER BY p.seq`,
      [storeNum, inKeys],
    )
    .map(([seq]) => seq as number);
  const erased = new Set(seqs);
  const received = receivedTexts(sql, storeNum)
    .filter(([seq, text]) => !erased.has(seq) && jsonTextMentions(text, keys))
    .map(([seq]) => seq);
  // Only entries whose text holds a key's identifying words are read into JavaScript (SQLite's lower()
  // folds ASCII only, as does what the words are compared with here: JSON keeps addresses as sent).
  const mentions = keyList.map((key) => identifyingTexts(key).filter((n) => n !== ''));
  const textMatch = mentions.length === 0 ? '0' : mentions.map((needles) => `(${needles.map(() => 'instr(lower(payload), ?) > 0').join(' AND ') || '0'})`).join(' OR ');
  const rejections = sql
    .all(`SELECT seq, agent, payload FROM rejections INDEXED BY rejections_store WHERE store_num = ? AND (agent IN (SELECT value FROM json_each(?)) OR ${textMatch})`, [
      storeNum,
      inKeys,
      ...mentions.flat(),
    ])
    .filter(([, agent, payload]) => (typeof agent === 'string' && keys.has(agent)) || jsonTextMentions(payload as string, keys))
    .map(([seq]) => seq as number);
  const refusals = sql
    .all('SELECT id, path, reason, user_agent FROM refusals WHERE store_num = ?', [storeNum])
    .filter(([, path, reason, userAgent]) => plainTextMentions(`${path as string}\n${reason as string}\n${(userAgent as string | null) ?? ''}`, keys))
    .map(([id]) => id as number);
  const launches = sql
    .all('SELECT id, actor FROM bench_launches WHERE store_num = ?', [storeNum])
    .filter(([, actor]) => {
      const parsed = JSON.parse(actor as string) as Agent;
      return keys.has(agentKey(parsed) ?? '') || jsonMentions(parsed, keys);
    })
    .map(([id]) => id as string);
  const documents = new Map(
    sql
      .all(`SELECT kind, count(*) FROM documents WHERE store_num = ? AND kind IN ('state', 'agentProfile') AND agent IN (SELECT value FROM json_each(?)) GROUP BY kind`, [storeNum, inKeys])
      .map(([kind, n]) => [kind as string, n as number]),
  );
  const [writes] = sql.first('SELECT count(*) FROM bench_document_writes WHERE store_num = ? AND agent IN (SELECT value FROM json_each(?))', [storeNum, inKeys])!;
  const attachments = unusedAttachments(sql, storeNum, seqs);
  const counts = countErasure({ seqs, attachments, rejections, refusals, received, launches, documents, documentWrites: writes as number });
  return { counts, op: { t: 'eraseAgents', storeNum, keys: keyList, seqs, attachments, rejections, refusals, received, launches } };
}

/** Applies an `eraseAgents` record. The caller wraps it in a transaction. */
export function applyEraseAgents(state: ApplyState, op: EraseAgentsOp): void {
  const { sql } = state;
  const { storeNum } = op;
  deleteStatementRows(state, storeNum, op.seqs, op.attachments);
  const keys = JSON.stringify(op.keys);
  for (const seq of op.received) sql.run('UPDATE statements SET received = NULL WHERE seq = ? AND store_num = ?', [seq, storeNum]);
  let rejections = 0;
  for (const seq of op.rejections) {
    sql.run('DELETE FROM rejections WHERE seq = ? AND store_num = ?', [seq, storeNum]);
    rejections += sql.db.getRowsModified();
  }
  const counts = state.counts.get(storeNum);
  if (counts) counts.rejections -= rejections;
  for (const id of op.refusals) sql.run('DELETE FROM refusals WHERE id = ? AND store_num = ?', [id, storeNum]);
  sql.run(`DELETE FROM documents WHERE store_num = ? AND kind IN ('state', 'agentProfile') AND agent IN (SELECT value FROM json_each(?))`, [storeNum, keys]);
  sql.run('DELETE FROM bench_document_writes WHERE store_num = ? AND agent IN (SELECT value FROM json_each(?))', [storeNum, keys]);
  for (const id of op.launches) sql.run('DELETE FROM bench_launches WHERE store_num = ? AND id = ?', [storeNum, id]);
  // A learner's name must not stay searchable, whichever statement it was kept from.
  for (const key of op.keys) forgetName(sql, storeNum, 'agent', key);
  insertErasureRow(sql, op.entry);
}

function insertErasureRow(sql: Sql, entry: ErasureRecord): void {
  sql.run('INSERT OR IGNORE INTO erasures (id, store_id, at, salt, ifi_hashes, counts) VALUES (?, ?, ?, ?, ?, ?)', [
    entry.id,
    entry.storeId,
    entry.at,
    entry.salt,
    JSON.stringify(entry.ifiHashes),
    JSON.stringify(entry.counts),
  ]);
}

/** The ledger, oldest first; one Store's entries, or every entry. */
export function listErasureRows(sql: Sql, storeId?: string): ErasureRecord[] {
  const rows =
    storeId === undefined
      ? sql.all('SELECT id, store_id, at, salt, ifi_hashes, counts FROM erasures ORDER BY at, id')
      : sql.all('SELECT id, store_id, at, salt, ifi_hashes, counts FROM erasures WHERE store_id = ? ORDER BY at, id', [storeId]);
  return rows.map(([id, store, at, salt, hashes, counts]) => ({
    id: id as string,
    storeId: store as string,
    at: at as string,
    salt: salt as string,
    ifiHashes: JSON.parse(hashes as string) as string[],
    counts: { ...NO_ERASURE_COUNTS, ...(JSON.parse(counts as string) as Partial<ErasureCounts>) },
  }));
}
