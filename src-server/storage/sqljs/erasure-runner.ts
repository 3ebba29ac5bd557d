/**
 * Running erasures and retention steps on the durable database (above the domains and the core,
 * like pruning.ts): each planned and committed with no await between, so no write slips in
 * between the check that decided the rows and the record that removes them. Also the open-time
 * reconciliation of the ledger file with the database (erasure-ledger-file.ts): erasures the
 * database does not hold (a restored older image) are applied again, and entries the file misses
 * are appended to it.
 */
import { keysOfRecord, newErasureRecord } from '../erasure';
import type { ErasureCounts, ErasureOutcome, ErasureRecord, ErasureRequest, RetentionCutoffs, RetentionStepResult } from '../erasure';
import { appendErasureLedgerFile, readErasureLedgerFile } from './erasure-ledger-file';
import { listErasureRows, planEraseAgents, storeAgentKeys } from './erasure';
import type { DurableDatabase } from './durable-database';
import { planRetainRecords } from './store-retention';
import { requireStoreNum } from './stores';

export async function eraseAgentsOn(db: DurableDatabase, storeId: string, request: ErasureRequest): Promise<ErasureOutcome> {
  await db.writable();
  const storeNum = requireStoreNum(db.state, storeId);
  const { counts, op } = planEraseAgents(db.state, storeNum, request.keys);
  if (request.dryRun) {
    await db.durable();
    return { dryRun: true, counts, erasure: null };
  }
  const entry = newErasureRecord(storeId, request.at, op.keys, counts);
  await db.commit({ ...op, entry });
  await appendErasureLedgerFile(db.dataDir, [entry]);
  return { dryRun: false, counts, erasure: entry };
}

export async function retentionStepOn(db: DurableDatabase, storeId: string, cutoffs: RetentionCutoffs): Promise<RetentionStepResult> {
  await db.writable();
  const storeNum = db.state.storeNums.get(storeId);
  const op = storeNum === undefined ? null : planRetainRecords(db.state, storeNum, cutoffs);
  if (!op) return { statements: 0, rejections: 0, refusals: 0 };
  const before = db.state.counts.get(op.storeNum)?.statements ?? 0;
  const durable = db.commit(op);
  const statements = before - (db.state.counts.get(op.storeNum)?.statements ?? 0);
  await durable;
  return { statements, rejections: op.rejections.length, refusals: op.refusals.length };
}

/** Storage.reapplyErasure: the keys found by the entry's hashes erased, the entry kept as recorded. */
export async function reapplyErasureOn(db: DurableDatabase, entry: ErasureRecord): Promise<ErasureCounts | null> {
  await db.writable();
  if (listErasureRows(db.sql, entry.storeId).some((held) => held.id === entry.id)) return null;
  const storeNum = db.state.storeNums.get(entry.storeId);
  if (storeNum === undefined) return null;
  const { counts, op } = planEraseAgents(db.state, storeNum, keysOfRecord(entry, storeAgentKeys(db.sql, storeNum)));
  await db.commit({ ...op, entry });
  return counts;
}

/**
 * Storage.keepErasureRecord: the entry written as recorded, nothing erased (a deployment moved here
 * from another backend, whose data the erasure already left out). An `eraseAgents` record that
 * removes nothing carries it, so the journal replays it like any erasure; a deleted Store's entry
 * is kept too (no row has its number). False when the ledger holds the id already.
 */
export async function keepErasureRecordOn(db: DurableDatabase, entry: ErasureRecord): Promise<boolean> {
  await db.writable();
  if (listErasureRows(db.sql, entry.storeId).some((held) => held.id === entry.id)) return false;
  const storeNum = db.state.storeNums.get(entry.storeId) ?? -1;
  await db.commit({ t: 'eraseAgents', storeNum, keys: [], seqs: [], attachments: [], rejections: [], refusals: [], received: [], launches: [], entry });
  return true;
}

/**
 * At open: applies again every erasure of the ledger file the database does not hold (after a
 * restore of an image taken before it), hashing every agent key of its Store with the entry's salt
 * to find whom it erased; then appends to the file the entries it lacks. Resolves with the entries
 * applied again.
 */
export async function reconcileErasureLedger(db: DurableDatabase, log: (msg: string) => void): Promise<ErasureRecord[]> {
  const inFile = await readErasureLedgerFile(db.dataDir);
  const inDatabase = listErasureRows(db.sql);
  const held = new Set(inDatabase.map((entry) => entry.id));
  const reapplied: ErasureRecord[] = [];
  for (const entry of inFile) {
    if (held.has(entry.id)) continue;
    held.add(entry.id);
    const counts = await reapplyErasureOn(db, entry);
    if (counts === null) {
      log(`erasure ${entry.id} of ${entry.at}: its Store is not in this data; nothing to apply again`);
      continue;
    }
    log(`applied again erasure ${entry.id} of ${entry.at}: ${counts.statements} statements, ${counts.rejections} rejected entries, ${counts.stateDocuments + counts.agentProfileDocuments} documents`);
    reapplied.push(entry);
  }
  const inFileIds = new Set(inFile.map((entry) => entry.id));
  await appendErasureLedgerFile(
    db.dataDir,
    inDatabase.filter((entry) => !inFileIds.has(entry.id)),
  );
  return reapplied;
}
