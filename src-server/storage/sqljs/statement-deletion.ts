/**
 * Deleting statements by seq, with everything kept with them: the one primitive an erasure
 * (erasure.ts) and a Store's retention (store-retention.ts) both use. The statement row (its copy
 * as received is a column of it), its index postings (terms no longer used go, and with an agent's
 * term the Explorer's name of that agent), its StatementRef target row, attachment payloads no
 * other statement uses (decided when the operation is planned, so the record carries them), the
 * verb's name when no statement of the verb is left, and the Store's count. Statements of others
 * that reference a deleted one (StatementRef, voiding) stay as they are, voided flags included.
 * Ingestion statistics are counts without identities: they keep counting what was deleted.
 */
import { attachmentShas } from '../erasure';
import { extractIndexTerms } from '../../xapi/index-terms';
import type { Statement } from '../../xapi/statement-schema';
import { indexWords } from '../explorer-names';
import type { ApplyState } from './apply-state';
import type { Sql } from './sql';
import { STATEMENT_AND_CONTEXT, statementTextAt } from './statement-codec';

/**
 * The attachment payloads of the statements `seqs` that no other statement of the Store declares:
 * read when the operation is planned (a scan of the Store's statements by text, only when the
 * deleted statements have attachments at all).
 */
export function unusedAttachments(sql: Sql, storeNum: number, seqs: readonly number[]): string[] {
  const shas = new Set<string>();
  for (const seq of seqs) {
    // Only TEXT rows declare attachments (statement-codec.ts, statementColumn).
    const row = sql.first("SELECT statement FROM statements WHERE seq = ? AND store_num = ? AND typeof(statement) = 'text' AND instr(statement, '\"attachments\"') > 0", [seq, storeNum]);
    if (row) for (const sha of attachmentShas(JSON.parse(row[0] as string) as Record<string, unknown>)) shas.add(sha);
  }
  if (shas.size === 0) return [];
  const deleting = JSON.stringify(seqs);
  return [...shas]
    .filter((sha) => sql.first('SELECT 1 FROM attachments WHERE store_num = ? AND sha2 = ?', [storeNum, sha]) !== undefined)
    .filter(
      (sha) =>
        sql.first("SELECT 1 FROM statements WHERE store_num = ? AND seq NOT IN (SELECT value FROM json_each(?)) AND typeof(statement) = 'text' AND instr(statement, ?) > 0 LIMIT 1", [
          storeNum,
          deleting,
          sha,
        ]) === undefined,
    )
    .sort();
}

/** Removes one Explorer name with its words. */
export function forgetName(sql: Sql, storeNum: number, kind: string, value: string): void {
  const stored = sql.first('SELECT search FROM explorer_names WHERE store_num = ? AND kind = ? AND value = ?', [storeNum, kind, value]);
  if (!stored) return;
  for (const word of indexWords(stored[0] as string)) {
    sql.run('DELETE FROM explorer_name_words WHERE store_num = ? AND kind = ? AND word = ? AND value = ?', [storeNum, kind, word, value]);
  }
  sql.run('DELETE FROM explorer_names WHERE store_num = ? AND kind = ? AND value = ?', [storeNum, kind, value]);
}

/**
 * Applies the deletion of statements (inside the caller's transaction); resolves how many rows
 * went. `attachments`: the payloads planned by unusedAttachments.
 */
export function deleteStatementRows(state: ApplyState, storeNum: number, seqs: readonly number[], attachments: readonly string[]): number {
  const { sql } = state;
  const terms = new Map<number, { kind: string; value: string }>();
  // Term ids by kind and value for this deletion: the statements of a step share most terms.
  const ids = new Map<string, number | null>();
  const idOf = (kind: string, value: string): number | null => {
    const key = `${kind}\u0000${value}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = (sql.first('SELECT id FROM terms WHERE store_num = ? AND kind = ? AND value = ?', [storeNum, kind, value])?.[0] as number | undefined) ?? null;
      ids.set(key, id);
    }
    return id;
  };
  const verbs = new Set<string>();
  let deleted = 0;
  for (const seq of seqs) {
    const row = sql.first(`SELECT verb_id, ${STATEMENT_AND_CONTEXT} FROM statements WHERE seq = ? AND store_num = ?`, [seq, storeNum]);
    if (!row) continue;
    // Postings are keyed by term: the statement's terms are those its text gives (xapi/index-terms.ts).
    for (const term of extractIndexTerms(JSON.parse(statementTextAt(row, 1)) as Statement).terms) {
      const id = idOf(term.kind, term.value);
      if (id === null) continue;
      sql.run('DELETE FROM term_postings WHERE term = ? AND seq = ?', [id, seq]);
      terms.set(id, term);
    }
    sql.run('DELETE FROM statement_targets WHERE store_num = ? AND seq = ?', [storeNum, seq]);
    sql.run('DELETE FROM statements WHERE seq = ?', [seq]);
    verbs.add(row[0] as string);
    deleted++;
  }
  for (const [id, term] of terms) {
    if (sql.first('SELECT 1 FROM term_postings WHERE term = ? LIMIT 1', [id])) continue;
    sql.run('DELETE FROM terms WHERE id = ?', [id]);
    if (term.kind === 'agent') forgetName(sql, storeNum, 'agent', term.value);
  }
  for (const verb of verbs) {
    if (!sql.first('SELECT 1 FROM statements INDEXED BY statements_verb WHERE store_num = ? AND verb_id = ? LIMIT 1', [storeNum, verb])) forgetName(sql, storeNum, 'verb', verb);
  }
  for (const sha of attachments) sql.run('DELETE FROM attachments WHERE store_num = ? AND sha2 = ?', [storeNum, sha]);
  // Ids and names of deleted terms must not be handed out again from memory.
  state.termIds.clear();
  state.names.clear();
  const counts = state.counts.get(storeNum);
  if (counts) counts.statements -= deleted;
  return deleted;
}
