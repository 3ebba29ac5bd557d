/**
 * The Stores' own retention as the service runs it (admin/retention-schedule.ts), on the real
 * embedded storage: only Stores with a period of their own are touched, old rows go in steps of
 * at most RETENTION_STEP_ROWS with the event loop let go between them, young rows stay.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RetentionSchedule } from '../../src-server/admin/retention-schedule';
import { RETENTION_STEP_ROWS } from '../../src-server/storage/erasure';
import type { RetentionStepResult } from '../../src-server/storage/erasure';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { statementRow } from '../storage/erasure-contract';
import { BASE_TIME, makeStore } from '../storage/rows';
import { openIn, removeTempDirs, tempDir } from '../storage/sqljs-helpers';

const DAY = 86_400;
let storage: SqljsStorage | undefined;
afterEach(async () => {
  await storage?.close();
  await removeTempDirs();
});

describe('the retention schedule', () => {
  it('removes statements older than a Store keeps them, in steps that let requests run, and nothing of other Stores', async () => {
    storage = await openIn(await tempDir());
    const keeping = makeStore({ retention: { statementsDays: 30, rejectedDays: null, refusedDays: null } });
    const forever = makeStore();
    await storage.insertStore(keeping);
    await storage.insertStore(forever);
    const old = Array.from({ length: RETENTION_STEP_ROWS * 2 + RETENTION_STEP_ROWS / 2 }, (_, i) => statementRow({ actor: { mbox: `mailto:l${i % 50}@example.com`, name: `Learner ${i % 50}` } }, i));
    for (let i = 0; i < old.length; i += 250) await storage.insertStatements(keeping.id, old.slice(i, i + 250));
    const young = statementRow({ actor: { mbox: 'mailto:new@example.com' } }, 60 * DAY);
    await storage.insertStatements(keeping.id, [young]);
    await storage.insertStatements(forever.id, [statementRow({ actor: { mbox: 'mailto:old@example.com' } }, 0)]);

    expect(await storage.lookupNames(keeping.id, { kind: 'agent', words: ['learner'], limit: 5 })).toHaveLength(5);
    const steps: RetentionStepResult[] = [];
    let turnsBetweenSteps = 0;
    const real = storage;
    const schedule = new RetentionSchedule({
      storage: {
        listStores: () => real.listStores(),
        retentionStep: async (storeId, cutoffs) => {
          const step = await real.retentionStep(storeId, cutoffs);
          steps.push(step);
          setImmediate(() => turnsBetweenSteps++);
          return step;
        },
      },
      intervalMs: 3_600_000,
      log: () => {},
      now: () => BASE_TIME + 61 * DAY * 1000,
    });
    expect(await schedule.runOnce()).toEqual({ statements: old.length, rejections: 0, refusals: 0 });
    expect(steps.map((s) => s.statements)).toEqual([RETENTION_STEP_ROWS, RETENTION_STEP_ROWS, RETENTION_STEP_ROWS / 2, 0]);
    expect(turnsBetweenSteps).toBeGreaterThanOrEqual(3);
    const left = await real.queryStatements(keeping.id, { limit: 10 });
    expect(left.statements.map((s) => s.statementId)).toEqual([young.statementId]);
    expect((await real.stats(keeping.id)).statements).toBe(1);
    expect((await real.queryStatements(forever.id, { limit: 10 })).statements).toHaveLength(1);
    // A learner whose statements all went is no longer a name to find.
    expect(await real.lookupNames(keeping.id, { kind: 'agent', words: ['learner'], limit: 5 })).toEqual([]);
    await schedule.stop();
  });
});
