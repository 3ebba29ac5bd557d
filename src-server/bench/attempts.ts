/**
 * An attempt as the Test Bench shows it: every statement of one registration in stored order,
 * the State documents its launches wrote, the outcome as an LMS sees it and the rules it broke
 * (attempt-rules.ts), per launched unit and for the last one launched.
 */
import type { LaunchRecord, Storage, StoreRecord } from '../storage/storage';
import { agentKey } from '../xapi/agent-key';
import { checkAttempt } from './attempt-rules';
import type { AttemptOutcome, AttemptStatement, Violation } from './attempt-rules';
import { courseAus, courseBlocks, lmsActivityIds } from './cmi5-lms';
import { LMS_VERBS, VERB } from './cmi5-vocabulary';
import { documentChanges } from './document-writes';
import type { LaunchMode } from './cmi5-lms';
import { packageDescription, packageReference } from './packages';
import { referenceVerdict } from './reference-outcome';
import type { ReferenceOutcome } from './reference-outcome';

/** The most statements an attempt view reads: a course sends tens to hundreds. */
const ATTEMPT_STATEMENT_LIMIT = 5_000;

export interface AttemptView {
  registration: string;
  packageId: string;
  actor: Record<string, unknown>;
  launches: Array<Pick<LaunchRecord, 'id' | 'unitId' | 'sessionId' | 'launchMode' | 'createdAt' | 'fetchedAt' | 'keyId'>>;
  statements: Array<{ id: string; stored: string; keyId: string; byLms: boolean; voided: boolean; statement: Record<string, unknown> }>;
  documents: Array<{ stateId: string; activityId: string; updated: string; etag: string; contentType: string; content: unknown }>;
  outcome: AttemptOutcome;
  /** Per unit launched or waived: what it reported, and whether the LMS waived it. */
  units: Array<{ unitId: string; outcome: AttemptOutcome; waived: boolean }>;
  violations: Violation[];
  /** What the package calls its Activities, by the ids statements use (the LMS's ids for cmi5). */
  activityTitles: Record<string, string>;
  reference: ReferenceOutcome | null;
  verdict: ReturnType<typeof referenceVerdict> | null;
  /** Every State write of the attempt, done or refused, with the change it made. */
  documentWrites: ReturnType<typeof documentChanges>;
}

/** Null when no launch of this Store has the registration. */
export async function attemptView(storage: Storage, store: StoreRecord, registration: string): Promise<AttemptView | null> {
  const launches = await storage.listLaunches(store.id, { registration });
  const last = launches.at(-1);
  if (!last) return null;
  const pkg = await storage.findPackage(store.id, last.packageId);
  if (!pkg) return null;
  const description = packageDescription(pkg);

  const page = await storage.queryStatements(store.id, { registration, ascending: true, limit: ATTEMPT_STATEMENT_LIMIT });
  const attemptKeys = new Set(launches.flatMap((launch) => (launch.keyId === null ? [] : [launch.keyId])));
  const lmsKeys = new Set(page.statements.filter((row) => !attemptKeys.has(row.keyId) && isLmsVerb(row.statement)).map((row) => row.keyId));
  const statements: AttemptStatement[] = page.statements.map((row) => ({
    statement: row.statement,
    stored: row.stored,
    keyId: lmsKeys.has(row.keyId) ? null : row.keyId,
    voided: row.voided,
  }));

  const units: AttemptView['units'] = [];
  const violations = new Map<string, Violation>();
  const waived = new Set(description.kind === 'cmi5' ? waivedUnits(pkg.id, description, statements) : []);
  const unitIds = [...new Set([...launches.map((launch) => launch.unitId), ...waived])];
  for (const unitId of unitIds) {
    const ofUnit = launches.filter((launch) => launch.unitId === unitId);
    const checked =
      description.kind === 'tincan'
        ? checkAttempt(
            { kind: 'tincan', registration, actor: last.actor, activityId: description.activityId, knownActivityIds: description.activities.map((a) => a.id) },
            statements,
          )
        : checkCmi5Unit(description, pkg.id, unitId, ofUnit, last, registration, statements);
    units.push({ unitId, outcome: checked.outcome, waived: waived.has(unitId) });
    for (const violation of checked.violations) violations.set(`${violation.statementId ?? ''} ${violation.rule}`, violation);
  }

  const outcome = units.find((unit) => unit.unitId === last.unitId)?.outcome ?? { completion: null, success: null, score: null, duration: null };
  const reference = packageReference(pkg);
  return {
    registration,
    packageId: pkg.id,
    actor: last.actor,
    launches: launches.map(({ id, unitId, sessionId, launchMode, createdAt, fetchedAt, keyId }) => ({ id, unitId, sessionId, launchMode, createdAt, fetchedAt, keyId })),
    statements: page.statements.map((row) => ({
      id: row.statementId,
      stored: row.stored,
      keyId: row.keyId,
      byLms: lmsKeys.has(row.keyId),
      voided: row.voided,
      statement: row.statement,
    })),
    documents: await stateDocuments(storage, store, registration, launches, description.kind === 'tincan' ? () => description.activityId : (unitId) => lmsActivityIds(pkg.id, description).au.get(unitId)),
    outcome,
    units,
    violations: [...violations.values()],
    activityTitles: activityTitles(pkg.id, description),
    reference,
    verdict: reference === null ? null : referenceVerdict(outcome, reference),
    documentWrites: documentChanges(await storage.listDocumentWrites(store.id, registration)),
  };
}

function activityTitles(packageId: string, description: ReturnType<typeof packageDescription>): Record<string, string> {
  if (description.kind === 'tincan') {
    return Object.fromEntries(description.activities.flatMap((activity) => (activity.name === null ? [] : [[activity.id, activity.name]])));
  }
  const ids = lmsActivityIds(packageId, description);
  const titles: Record<string, string> = { [ids.course]: description.course.title };
  for (const au of courseAus(description)) titles[ids.au.get(au.id)!] = au.title;
  for (const block of courseBlocks(description)) titles[ids.block.get(block.id)!] = block.title;
  return titles;
}

function checkCmi5Unit(
  description: Extract<ReturnType<typeof packageDescription>, { kind: 'cmi5' }>,
  packageId: string,
  unitId: string,
  launches: LaunchRecord[],
  lastOfAttempt: LaunchRecord,
  registration: string,
  statements: AttemptStatement[],
) {
  const ids = lmsActivityIds(packageId, description);
  const au = findAu(description.children, unitId);
  // A unit waived without ever being launched has no launch of its own: the attempt's learner is its.
  const lastOfUnit = launches.at(-1) ?? lastOfAttempt;
  return checkAttempt(
    {
      kind: 'cmi5',
      registration,
      actor: lastOfUnit.actor,
      auActivityId: ids.au.get(unitId) ?? unitId,
      publisherId: unitId,
      masteryScore: au?.masteryScore ?? null,
      moveOn: au?.moveOn ?? 'NotApplicable',
      launchMode: (lastOfUnit.launchMode as LaunchMode | null) ?? 'Normal',
      sessionIds: launches.flatMap((launch) => (launch.sessionId === null ? [] : [launch.sessionId])),
    },
    statements,
  );
}

type Node = Extract<ReturnType<typeof packageDescription>, { kind: 'cmi5' }>['children'][number];
function findAu(children: Node[], id: string): Extract<Node, { kind: 'au' }> | undefined {
  for (const child of children) {
    if (child.kind === 'au' && child.id === id) return child;
    if (child.kind === 'block') {
      const found = findAu(child.children, id);
      if (found) return found;
    }
  }
  return undefined;
}

/** The AUs (publisher ids) the LMS waived in the registration, launched or not. */
function waivedUnits(packageId: string, description: Extract<ReturnType<typeof packageDescription>, { kind: 'cmi5' }>, statements: AttemptStatement[]): string[] {
  const publisherOf = new Map([...lmsActivityIds(packageId, description).au].map(([publisherId, lmsId]) => [lmsId, publisherId]));
  return statements.flatMap(({ statement, voided }) => {
    const verb = (statement['verb'] as { id?: unknown } | undefined)?.id;
    const publisherId = publisherOf.get((statement['object'] as { id?: unknown } | undefined)?.id as string);
    return verb === VERB.waived && !voided && publisherId !== undefined ? [publisherId] : [];
  });
}

function isLmsVerb(statement: Record<string, unknown>): boolean {
  const verb = statement['verb'] as { id?: unknown } | undefined;
  return typeof verb?.id === 'string' && LMS_VERBS.has(verb.id);
}

/** The State documents of the attempt: per launched Activity, the learner's, in this registration. */
async function stateDocuments(
  storage: Storage,
  store: StoreRecord,
  registration: string,
  launches: LaunchRecord[],
  activityOf: (unitId: string) => string | undefined,
): Promise<AttemptView['documents']> {
  const documents: AttemptView['documents'] = [];
  const seen = new Set<string>();
  for (const launch of launches) {
    const activityId = activityOf(launch.unitId);
    const agent = agentKey(launch.actor as never);
    if (activityId === undefined || agent === null || seen.has(`${activityId} ${agent}`)) continue;
    seen.add(`${activityId} ${agent}`);
    const set = { kind: 'state' as const, activityId, agent, registration };
    for (const id of await storage.listDocumentIds(store.id, set)) {
      const document = await storage.findDocument(store.id, { ...set, id });
      if (!document) continue;
      const text = Buffer.from(document.content).toString('utf8');
      documents.push({
        stateId: id,
        activityId,
        updated: document.updated,
        etag: document.etag,
        contentType: document.contentType,
        content: document.contentType.startsWith('application/json') ? safeJson(text) : text,
      });
    }
  }
  return documents;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
