/**
 * Running the retention of the logs on the durable database: each step planned by its domain
 * (retention.ts for rejections, refusals.ts for refused requests) and committed like any write.
 * Above the domains and the durable core, which know nothing of it.
 */
import type { RetentionBounds } from '../retention-bounds';
import type { DurableDatabase } from './durable-database';
import type { Op } from './ops';
import { planPruneRejections } from './retention';

/**
 * Prunes every Store's log, a chunk per operation, each committed like any write (journaled,
 * durable before the next). Resolves with the number of rejections deleted.
 */
export async function pruneRejections(db: DurableDatabase, boundsFor: (storeId: string) => RetentionBounds | null, nowMs: number): Promise<number> {
  let deleted = 0;
  for (const [storeId, storeNum] of [...db.state.storeNums]) {
    const bounds = boundsFor(storeId);
    if (!bounds) continue;
    for (;;) {
      await db.writable();
      // Planned, applied and counted with no await between: no other write can slip in.
      const op = planPruneRejections(db.state, storeNum, bounds, nowMs);
      if (!op) break;
      const before = db.state.counts.get(storeNum)?.rejections ?? 0;
      const durable = db.commit(op);
      deleted += before - (db.state.counts.get(storeNum)?.rejections ?? 0);
      await durable;
      // Let requests run between chunks.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return deleted;
}

/**
 * Runs pruning steps until `plan` finds nothing due, each committed like any write (journaled,
 * durable before the next), with requests let run between them. Planned and committed with no
 * await between: no other write can slip in. Used by the log of refused requests too (refusals.ts).
 */
export async function pruneStepwise(db: DurableDatabase, plan: () => Op | null): Promise<void> {
  for (;;) {
    await db.writable();
    const op = plan();
    if (!op) return;
    await db.commit(op);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
