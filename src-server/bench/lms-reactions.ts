/**
 * What the Test Bench's LMS does after an AU's statements are stored (docs/test-bench-rules.md,
 * 3.6, 3.7 and 4.6). It listens to what the LRS recorded, as the live events do:
 * - after a completed, passed, failed (or waived), moveOn is evaluated again for the registration,
 *   and each block and the course that became satisfied gets its `satisfied` statement, in the
 *   session that satisfied it;
 * - after a session's `terminated`, the session's key works for one more minute (a grace for what
 *   the AU still sends as it closes), then expires: the attempt's key ends with the attempt.
 */
import type { StoreRecord } from '../storage/storage';
import type { BenchContext } from './bench-context';
import { recordLmsStatements } from './bench-context';
import { CMI5, courseBlocks, lmsActivityIds, satisfiedStatement } from './cmi5-lms';
import { VERB } from './cmi5-vocabulary';
import type { Cmi5Session, LaunchMode } from './cmi5-lms';
import { progressFromStatements, satisfiedNodes } from './move-on';
import { packageDescription } from './packages';

const JUDGED: ReadonlySet<string> = new Set([VERB.completed, VERB.passed, VERB.failed, VERB.waived]);

/** How long a session's key keeps working after its `terminated`. */
const AFTER_TERMINATED_GRACE_MS = 60_000;

export class LmsReactions {
  /** The checks under way, so that stopping can wait for them. */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly ctx: BenchContext) {}

  /** Returns at once: the check runs after the write was answered. */
  announceStatements(store: StoreRecord, _rows: ReadonlyArray<{ statementId: string }>, inserted: readonly string[]): void {
    if (store.environment !== 'test' || inserted.length === 0) return;
    const check = this.check(store, inserted)
      .catch((err: unknown) => this.ctx.log(`Test Bench: could not evaluate moveOn in Store "${store.slug}": ${String(err)}`))
      .finally(() => this.pending.delete(check));
    this.pending.add(check);
  }

  announceRejections(): void {}

  /** Resolves once every check begun so far is over. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async check(store: StoreRecord, inserted: readonly string[]): Promise<void> {
    const triggers = new Map<string, string | null>(); // registration → session id of the statement
    for (const id of inserted) {
      const found = await this.ctx.storage.findStatement(store.id, id);
      const statement = found?.statement;
      const verb = (statement?.['verb'] as { id?: unknown } | undefined)?.id;
      const context = statement?.['context'] as { registration?: unknown; extensions?: Record<string, unknown> } | undefined;
      if (typeof verb !== 'string' || typeof context?.registration !== 'string') continue;
      const sessionId = context.extensions?.[CMI5.sessionId];
      if (verb === VERB.terminated && typeof sessionId === 'string') await this.endSession(store, context.registration, sessionId, found!.keyId);
      if (JUDGED.has(verb)) triggers.set(context.registration, typeof sessionId === 'string' ? sessionId : null);
    }
    for (const [registration, sessionId] of triggers) await this.evaluate(store, registration, sessionId);
  }

  /** The session's own key (not another's) expires after the grace, unless it expires sooner. */
  private async endSession(store: StoreRecord, registration: string, sessionId: string, keyId: string): Promise<void> {
    const launch = (await this.ctx.storage.listLaunches(store.id, { registration })).find((candidate) => candidate.sessionId === sessionId);
    if (!launch || launch.keyId !== keyId) return;
    const key = await this.ctx.storage.findApiKey(keyId);
    const ends = new Date(Date.now() + AFTER_TERMINATED_GRACE_MS);
    if (!key || (key.expiresAt !== null && Date.parse(key.expiresAt) <= ends.getTime())) return;
    await this.ctx.storage.updateApiKey(keyId, { expiresAt: ends.toISOString() });
  }

  private async evaluate(store: StoreRecord, registration: string, sessionId: string | null): Promise<void> {
    const launches = await this.ctx.storage.listLaunches(store.id, { registration });
    const launch = launches.find((candidate) => candidate.sessionId === sessionId) ?? launches.at(-1);
    if (!launch || launch.sessionId === null) return;
    const pkg = await this.ctx.storage.findPackage(store.id, launch.packageId);
    if (!pkg) return;
    const description = packageDescription(pkg);
    if (description.kind !== 'cmi5') return;

    const ids = lmsActivityIds(pkg.id, description);
    const page = await this.ctx.storage.queryStatements(store.id, { registration, ascending: true, limit: 10_000 });
    const statements = page.statements.filter((row) => !row.voided).map((row) => row.statement);
    const publisherOf = new Map([...ids.au].map(([publisherId, lmsId]) => [lmsId, publisherId]));
    const satisfied = satisfiedNodes(description, progressFromStatements(statements, publisherOf));
    const already = new Set(
      statements
        .filter((statement) => (statement['verb'] as { id?: unknown } | undefined)?.id === CMI5.satisfied)
        .map((statement) => (statement['object'] as { id?: unknown } | undefined)?.id),
    );

    const session: Cmi5Session = {
      actor: launch.actor,
      registration,
      sessionId: launch.sessionId,
      launchMode: (launch.launchMode as LaunchMode | null) ?? 'Normal',
      // Satisfied statements are about blocks and the course; the AU is only the session's.
      au: { kind: 'au', id: launch.unitId, title: '', url: '', moveOn: 'NotApplicable', masteryScore: null, launchMethod: 'AnyWindow', launchParameters: null, entitlementKey: null, activityType: null },
      auActivityId: ids.au.get(launch.unitId) ?? launch.unitId,
    };
    const now = new Date();
    const blocks = new Map(courseBlocks(description).map((block) => [block.id, block]));
    const toRecord = satisfied.blocks.flatMap((blockId) => {
      const activityId = ids.block.get(blockId)!;
      if (already.has(activityId)) return [];
      return [satisfiedStatement(session, { activityId, publisherId: blockId, title: blocks.get(blockId)?.title ?? blockId, type: CMI5.blockType }, now)];
    });
    if (satisfied.course && !already.has(ids.course)) {
      toRecord.push(satisfiedStatement(session, { activityId: ids.course, publisherId: description.course.id, title: description.course.title, type: CMI5.courseType }, now));
    }
    await recordLmsStatements(this.ctx, store, toRecord);
  }
}
