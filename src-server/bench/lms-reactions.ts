/**
 * What the Test Bench's LMS does after an AU's statements are stored (docs/test-bench-rules.md,
 * 3.6, 3.7 and 4.6). It listens to what the LRS recorded, as the live events do:
 * - after a completed, passed, failed (or waived), moveOn is evaluated again for the registration,
 *   and each block and the course that became satisfied gets its `satisfied` statement, in the
 *   session that satisfied it;
 *   A `waived` is the LMS's own, in a session of its own: what it satisfies is recorded in that
 *   session;
 * - after a session's `terminated` (cmi5), or a Tin Can course's `terminated` or `exited` about the
 *   launched activity, the launch's key works for one more minute (a grace for what the content
 *   still sends as it closes), then expires: the attempt's key ends with the attempt.
 */
import type { RecordedStatement } from '../lrs/statement-writes';
import type { StoreRecord } from '../storage/storage';
import type { BenchContext } from './bench-context';
import { recordLmsStatements } from './bench-context';
import { courseBlocks, lmsActivityIds, satisfiedStatement } from './cmi5-lms';
import { CMI5_ID, LMS_VERBS } from './cmi5-vocabulary';
import { VERB } from './cmi5-vocabulary';
import type { Cmi5Session, LaunchMode } from './cmi5-lms';
import { progressFromStatements, satisfiedNodes } from './move-on';
import { packageDescription } from './packages';

const JUDGED: ReadonlySet<string> = new Set([VERB.completed, VERB.passed, VERB.failed, VERB.waived]);
/** What ends a Tin Can launch when the course says it about the launched activity. */
const TINCAN_ENDINGS: ReadonlySet<string> = new Set([VERB.terminated, VERB.exited]);
/** The verbs the LMS reacts to (a cmi5 session ends with terminated, which is among the endings). */
const REACTED_TO: ReadonlySet<string> = new Set([...JUDGED, ...TINCAN_ENDINGS]);

/** How long a launch's key keeps working after the content said the attempt ended. */
const AFTER_END_GRACE_MS = 60_000;

export class LmsReactions {
  /** The checks under way, so that stopping can wait for them. */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly ctx: BenchContext) {}

  /** Returns at once: the check runs after the write was answered. */
  announceStatements(store: StoreRecord, rows: ReadonlyArray<RecordedStatement>, inserted: readonly string[]): void {
    if (store.environment !== 'test' || inserted.length === 0) return;
    // Only statements with a verb it reacts to: the others (nearly all of what content sends)
    // change nothing. Each is taken as the write stored it, not read back (that cost a test
    // Store's single-statement writes ~3% of their CPU).
    const fresh = new Set(inserted);
    const relevant = rows.filter((row) => fresh.has(row.statementId) && REACTED_TO.has(row.verbId));
    if (relevant.length === 0) return;
    const check = this.check(store, relevant)
      .catch((err: unknown) => this.ctx.log(`Test Bench: could not evaluate moveOn in Store "${store.slug}": ${String(err)}`))
      .finally(() => this.pending.delete(check));
    this.pending.add(check);
  }

  announceRejections(): void {}

  /** Resolves once every check begun so far is over. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async check(store: StoreRecord, inserted: readonly RecordedStatement[]): Promise<void> {
    // registration → the session to record what becomes satisfied in
    const triggers = new Map<string, { sessionId: string | null; lmsSession: boolean }>();
    for (const found of inserted) {
      const { statement } = found;
      const verb = (statement['verb'] as { id?: unknown } | undefined)?.id;
      const objectId = (statement['object'] as { id?: unknown } | undefined)?.id;
      const context = statement['context'] as { registration?: unknown; extensions?: Record<string, unknown> } | undefined;
      if (typeof verb !== 'string' || typeof context?.registration !== 'string') continue;
      const sessionId = context.extensions?.[CMI5_ID.sessionId];
      const ending = typeof sessionId === 'string' ? (verb === VERB.terminated ? { sessionId } : null) : TINCAN_ENDINGS.has(verb) ? { objectId } : null;
      if (ending) await this.endLaunch(store, context.registration, found.keyId, ending);
      if (JUDGED.has(verb)) {
        triggers.set(context.registration, { sessionId: typeof sessionId === 'string' ? sessionId : null, lmsSession: verb === VERB.waived });
      }
    }
    for (const [registration, trigger] of triggers) await this.evaluate(store, registration, trigger);
  }

  /**
   * The launch's own key (not another's) expires after the grace, unless it expires sooner. A cmi5
   * launch is found by its session, a Tin Can launch by its key and the activity it launched.
   */
  private async endLaunch(store: StoreRecord, registration: string, keyId: string, ending: { sessionId: string } | { objectId: unknown }): Promise<void> {
    const launches = await this.ctx.storage.listLaunches(store.id, { registration });
    const launch = launches.find((candidate) =>
      'sessionId' in ending ? candidate.sessionId === ending.sessionId : candidate.sessionId === null && candidate.unitId === ending.objectId,
    );
    if (!launch || launch.keyId !== keyId) return;
    const key = await this.ctx.storage.findApiKey(keyId);
    const ends = new Date(Date.now() + AFTER_END_GRACE_MS);
    if (!key || (key.expiresAt !== null && Date.parse(key.expiresAt) <= ends.getTime())) return;
    await this.ctx.storage.updateApiKey(keyId, { expiresAt: ends.toISOString() });
  }

  private async evaluate(store: StoreRecord, registration: string, trigger: { sessionId: string | null; lmsSession: boolean }): Promise<void> {
    const launches = await this.ctx.storage.listLaunches(store.id, { registration });
    const launch = launches.find((candidate) => candidate.sessionId === trigger.sessionId) ?? launches.at(-1);
    if (!launch || launch.sessionId === null) return;
    const pkg = await this.ctx.storage.findPackage(store.id, launch.packageId);
    if (!pkg) return;
    const description = packageDescription(pkg);
    if (description.kind !== 'cmi5') return;

    const ids = lmsActivityIds(pkg.id, description);
    const page = await this.ctx.storage.queryStatements(store.id, { registration, ascending: true, limit: 10_000 });
    // A verb only the LMS records counts only from the LMS: an AU that sent `waived` itself is flagged, not obeyed.
    const contentKeys = new Set(launches.flatMap((candidate) => (candidate.keyId === null ? [] : [candidate.keyId])));
    const statements = page.statements
      .filter((row) => !row.voided && !(contentKeys.has(row.keyId) && LMS_VERBS.has((row.statement['verb'] as { id?: unknown } | undefined)?.id as string)))
      .map((row) => row.statement);
    const publisherOf = new Map([...ids.au].map(([publisherId, lmsId]) => [lmsId, publisherId]));
    const satisfied = satisfiedNodes(description, progressFromStatements(statements, publisherOf));
    const already = new Set(
      statements
        .filter((statement) => (statement['verb'] as { id?: unknown } | undefined)?.id === VERB.satisfied)
        .map((statement) => (statement['object'] as { id?: unknown } | undefined)?.id),
    );

    const session: Cmi5Session = {
      actor: launch.actor,
      registration,
      sessionId: trigger.lmsSession && trigger.sessionId !== null ? trigger.sessionId : launch.sessionId,
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
      return [satisfiedStatement(session, { activityId, publisherId: blockId, title: blocks.get(blockId)?.title ?? blockId, type: CMI5_ID.blockType }, now)];
    });
    if (satisfied.course && !already.has(ids.course)) {
      toRecord.push(satisfiedStatement(session, { activityId: ids.course, publisherId: description.course.id, title: description.course.title, type: CMI5_ID.courseType }, now));
    }
    await recordLmsStatements(this.ctx, store, toRecord);
  }
}
