/**
 * An administrator waiving a cmi5 AU for a registration, as an LMS does when the learner met its
 * requirements some other way (docs/test-bench-rules.md 3.6): the LMS records `waived` in a session
 * of its own, and moveOn is evaluated again (lms-reactions.ts hears the statement like any other).
 */
import { randomUUID } from 'node:crypto';
import type { StoreRecord } from '../storage/storage';
import type { BenchContext } from './bench-context';
import { recordLmsStatements } from './bench-context';
import { CMI5, courseAus, lmsActivityIds, waivedStatement } from './cmi5-lms';
import type { LaunchMode } from './cmi5-lms';
import type { WaiverReason } from './cmi5-vocabulary';
import { LaunchRefusal } from './launches';
import { packageDescription } from './packages';

export interface WaiverRequest {
  /** The AU's id in cmi5.xml. */
  unit: string;
  reason: WaiverReason;
}

export async function waiveUnit(
  ctx: BenchContext,
  store: StoreRecord,
  registration: string,
  request: WaiverRequest,
  now = new Date(),
): Promise<{ statementId: string; sessionId: string }> {
  if (store.environment !== 'test') {
    throw new LaunchRefusal(409, 'live_store', `Store "${store.slug}" is a live Store: the Test Bench waives AUs only in test Stores.`);
  }
  const launches = await ctx.storage.listLaunches(store.id, { registration });
  const last = launches.at(-1);
  const pkg = last ? await ctx.storage.findPackage(store.id, last.packageId) : null;
  if (!last || !pkg) {
    throw new LaunchRefusal(404, 'attempt_not_found', `No Test Bench launch in Store "${store.slug}" has the registration "${registration}".`);
  }
  const description = packageDescription(pkg);
  if (description.kind !== 'cmi5') {
    throw new LaunchRefusal(409, 'not_cmi5', `"${pkg.title}" is a Tin Can package: only cmi5 has AUs an LMS can waive.`);
  }
  const aus = courseAus(description);
  const au = aus.find((candidate) => candidate.id === request.unit);
  if (!au) {
    throw new LaunchRefusal(400, 'unknown_unit', `The package "${pkg.title}" has no AU "${request.unit}": pick one of ${aus.map((a) => `"${a.id}"`).join(', ')}.`);
  }
  const auActivityId = lmsActivityIds(pkg.id, description).au.get(au.id)!;
  // cmi5 allows one waived per AU and registration: a second would say nothing new.
  const earlier = await ctx.storage.queryStatements(store.id, { registration, verbId: CMI5.waived, activityId: auActivityId, ascending: true, limit: 100 });
  if (earlier.statements.some((row) => !row.voided)) {
    throw new LaunchRefusal(409, 'already_waived', `"${au.title}" is already waived in this attempt.`);
  }

  const sessionId = randomUUID();
  const statement = waivedStatement(
    { actor: last.actor, registration, sessionId, launchMode: (last.launchMode as LaunchMode | null) ?? 'Normal', au, auActivityId },
    request.reason,
    now,
  );
  await recordLmsStatements(ctx, store, [statement]);
  return { statementId: statement['id'] as string, sessionId };
}
