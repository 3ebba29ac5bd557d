/**
 * The LMS side of a cmi5 launch as the Test Bench plays it (docs/test-bench-rules.md, 3): the
 * Activity ids the LMS mints, the `LMS.LaunchData` State document, and the statements the LMS
 * itself records (launched, satisfied, abandoned, waived). Pure builders: the caller records them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { CMI5_ID, VERB } from './cmi5-vocabulary';
import type { WaiverReason } from './cmi5-vocabulary';
import type { Cmi5Au, Cmi5Block, Cmi5Description } from './package-description';

/** What the LMS side writes: the verbs it records and cmi5's identifiers (cmi5-vocabulary.ts). */
export const CMI5 = {
  launched: VERB.launched,
  terminated: VERB.terminated,
  satisfied: VERB.satisfied,
  abandoned: VERB.abandoned,
  waived: VERB.waived,
  ...CMI5_ID,
} as const;

export type LaunchMode = 'Normal' | 'Browse' | 'Review';

/**
 * The LMS's ids differ from the publisher's (cmi5 requires it) and stay the same for a package
 * across registrations: its id and the unit's place in the course structure.
 */
export function lmsActivityIds(packageId: string, description: Cmi5Description): {
  au: Map<string, string>;
  block: Map<string, string>;
  course: string;
} {
  const au = new Map<string, string>();
  const block = new Map<string, string>();
  const walk = (children: Array<Cmi5Au | Cmi5Block>) => {
    for (const child of children) {
      if (child.kind === 'au') au.set(child.id, `urn:lore:package:${packageId}:au:${au.size + 1}`);
      else {
        block.set(child.id, `urn:lore:package:${packageId}:block:${block.size + 1}`);
        walk(child.children);
      }
    }
  };
  walk(description.children);
  return { au, block, course: `urn:lore:package:${packageId}:course` };
}

/** Every AU of the course, depth first, in document order. */
export function courseAus(description: Cmi5Description): Cmi5Au[] {
  const aus: Cmi5Au[] = [];
  const walk = (children: Array<Cmi5Au | Cmi5Block>) => {
    for (const child of children) {
      if (child.kind === 'au') aus.push(child);
      else walk(child.children);
    }
  };
  walk(description.children);
  return aus;
}

/** Every block of the course, depth first. */
export function courseBlocks(description: Cmi5Description): Cmi5Block[] {
  const blocks: Cmi5Block[] = [];
  const walk = (children: Array<Cmi5Au | Cmi5Block>) => {
    for (const child of children) {
      if (child.kind === 'block') {
        blocks.push(child);
        walk(child.children);
      }
    }
  };
  walk(description.children);
  return blocks;
}

export interface Cmi5Session {
  actor: Record<string, unknown>;
  registration: string;
  sessionId: string;
  launchMode: LaunchMode;
  au: Cmi5Au;
  auActivityId: string;
}

/** What every statement of the LMS about the AU carries (3.6); `moveOn` adds the moveon category. */
function lmsContext(
  session: Cmi5Session,
  publisherId: string,
  extensions: Record<string, unknown> = {},
  categories: { moveOn: boolean } = { moveOn: false },
): Record<string, unknown> {
  return {
    registration: session.registration,
    contextActivities: {
      category: [
        { objectType: 'Activity', id: CMI5.categoryCmi5 },
        ...(categories.moveOn ? [{ objectType: 'Activity', id: CMI5.categoryMoveOn }] : []),
      ],
      grouping: [{ objectType: 'Activity', id: publisherId }],
    },
    extensions: { [CMI5.sessionId]: session.sessionId, ...extensions },
  };
}

/** The `LMS.LaunchData` State document, written before the AU opens (3.4). */
export function launchData(session: Cmi5Session, returnUrl: string): Record<string, unknown> {
  const { au } = session;
  return {
    contextTemplate: {
      contextActivities: { grouping: [{ objectType: 'Activity', id: au.id }] },
      extensions: { [CMI5.sessionId]: session.sessionId },
    },
    launchMode: session.launchMode,
    launchMethod: au.launchMethod,
    moveOn: au.moveOn,
    returnURL: returnUrl,
    ...(au.launchParameters !== null ? { launchParameters: au.launchParameters } : {}),
    ...(au.masteryScore !== null ? { masteryScore: au.masteryScore } : {}),
    ...(au.entitlementKey !== null ? { entitlementKey: { courseStructure: au.entitlementKey } } : {}),
  };
}

/** The LMS's `launched` statement, recorded before the AU opens (3.6). */
export function launchedStatement(session: Cmi5Session, launchUrl: string, at: Date): Record<string, unknown> {
  const { au } = session;
  return {
    id: randomUUID(),
    actor: session.actor,
    verb: { id: CMI5.launched, display: { 'en-US': 'launched' } },
    object: { objectType: 'Activity', id: session.auActivityId, definition: { name: { 'en-US': au.title } } },
    context: lmsContext(session, au.id, {
      [CMI5.launchMode]: session.launchMode,
      [CMI5.launchUrl]: launchUrl,
      [CMI5.moveOn]: au.moveOn,
      ...(au.masteryScore !== null ? { [CMI5.masteryScore]: au.masteryScore } : {}),
      ...(au.launchParameters !== null ? { [CMI5.launchParameters]: au.launchParameters } : {}),
    }),
    timestamp: at.toISOString(),
  };
}

/** `abandoned` for a session a new launch found still open (3.6): its duration from launched to its last statement. */
export function abandonedStatement(session: Cmi5Session, durationMs: number, at: Date): Record<string, unknown> {
  return {
    id: randomUUID(),
    actor: session.actor,
    verb: { id: CMI5.abandoned, display: { 'en-US': 'abandoned' } },
    object: { objectType: 'Activity', id: session.auActivityId },
    result: { duration: isoDuration(durationMs) },
    context: lmsContext(session, session.au.id),
    timestamp: at.toISOString(),
  };
}

/**
 * `waived` for an AU (3.6): success and completion true with the reason, the moveon category,
 * and a session id of its own (the caller mints it; only `satisfied` statements may share it).
 */
export function waivedStatement(session: Cmi5Session, reason: WaiverReason, at: Date): Record<string, unknown> {
  return {
    id: randomUUID(),
    actor: session.actor,
    verb: { id: CMI5.waived, display: { 'en-US': 'waived' } },
    object: { objectType: 'Activity', id: session.auActivityId, definition: { name: { 'en-US': session.au.title } } },
    result: { success: true, completion: true, extensions: { [CMI5.reason]: reason } },
    context: lmsContext(session, session.au.id, {}, { moveOn: true }),
    timestamp: at.toISOString(),
  };
}

/**
 * `satisfied` for a block or the course (3.6), in the session that satisfied it. Its id is decided
 * by the registration and the object, so two processes that both see the block satisfied record
 * it once (the same statement twice is stored once).
 */
export function satisfiedStatement(
  session: Cmi5Session,
  target: { activityId: string; publisherId: string; title: string; type: string },
  at: Date,
): Record<string, unknown> {
  return {
    id: nameBasedUuid(`${session.registration} satisfied ${target.activityId}`),
    actor: session.actor,
    verb: { id: CMI5.satisfied, display: { 'en-US': 'satisfied' } },
    object: { objectType: 'Activity', id: target.activityId, definition: { type: target.type, name: { 'en-US': target.title } } },
    context: lmsContext(session, target.publisherId),
    timestamp: at.toISOString(),
  };
}

/** ISO 8601 duration in seconds, to the hundredth (what xAPI results carry). */
function isoDuration(ms: number): string {
  return `PT${(Math.max(0, ms) / 1000).toFixed(2).replace(/\.?0+$/, '')}S`;
}

/** A UUID (version 8, RFC 9562) made from a name: the same name, the same id. */
function nameBasedUuid(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex').slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
