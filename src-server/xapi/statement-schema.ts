/**
 * zod schemas for the whole xAPI Statement, per version (xAPI 1.0.3 Part Two §2.4; 2.0.0 Part Two §2.4).
 *
 * Conventions that issue-from-zod.ts relies on to write plain-words messages:
 * - every custom message is a phrase that completes "<field> …" (`must be an IRI …`);
 * - a phrase that starts with "must" gets ", got <value>" appended;
 * - a strict object's unrecognized-keys message is `KIND_MARK` + what the object is ("a Statement").
 *
 * Every object is strict: 1.0.3 §2.2.s4.b8 says the LRS SHOULD* reject additional properties, and
 * ADL's suites require it (a top-level "dummy" property, wrong-case keys like "ID", must give 400).
 * objectType values are case-sensitive (§2.2.s4.b1.b6). Nulls are rejected everywhere except
 * inside extensions (§2.2.s4.b1.b1): zod's optional() accepts absence, never null.
 */

import { z } from 'zod';
import { findJsonProblem } from './json-value';
import { isIri, isIrl, isIsoDuration, isMailtoIri, isMediaType, isSha1Hex, isSha2Hex, isStatementVersion, isUuid } from './formats';
import { isLanguageTag } from './language-tag';
import { isTimestamp } from './timestamp';
import type { XapiVersion } from './version';

/** Prefix of a strict object's unrecognized-keys message; the rest names the object. */
export const KIND_MARK = 'kind:';

export const VOIDED_VERB_ID = 'http://adlnet.gov/expapi/verbs/voided';

const INTERACTION_TYPES = [
  'true-false', 'choice', 'fill-in', 'long-fill-in', 'matching', 'performance', 'sequencing', 'likert', 'numeric', 'other',
] as const;

/** 1.0.3 §2.4.4.1 interaction components table: which component lists each interactionType takes. */
const COMPONENT_LISTS = {
  choices: ['choice', 'sequencing'],
  scale: ['likert'],
  source: ['matching'],
  target: ['matching'],
  steps: ['performance'],
} as const satisfies Record<string, ReadonlyArray<(typeof INTERACTION_TYPES)[number]>>;

// ---------------------------------------------------------------------------------------------
// Building blocks

function strict<T extends z.core.$ZodLooseShape>(kind: string, shape: T) {
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return `${KIND_MARK}${kind}`;
      if (issue.code === 'invalid_type') return `must be ${kind} (a JSON object)`;
      return undefined;
    },
  });
}

/** A string in a particular format; the same phrase serves a wrong type and a wrong format. */
function formatted(test: (value: string) => boolean, phrase: string) {
  return z.string({ error: phrase }).refine(test, { error: phrase });
}

function literal<const T extends string>(value: T, phrase = `must be "${value}" (objectType is case-sensitive)`) {
  return z.literal(value, { error: phrase });
}

/**
 * A discriminated union's messages: one for a value that is not an object at all, one for an
 * objectType that matches no option.
 */
function unionError(objectPhrase: string, objectTypePhrase: string) {
  return {
    error: (issue: { code?: string }) => (issue.code === 'invalid_type' ? objectPhrase : objectTypePhrase),
  };
}

function withArticle(word: string): string {
  return /^[AEIOU]/u.test(word) ? `an ${word}` : `a ${word}`;
}

function isObjectLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * zod drops a "__proto__" key from records silently (to keep prototypes safe); a statement that
 * carries one must be rejected instead, not stored without it.
 */
function rejectProtoKey(value: unknown, ctx: z.core.$RefinementCtx): void {
  if (isObjectLike(value) && Object.hasOwn(value, '__proto__')) {
    ctx.issues.push({ code: 'custom', message: 'is not an allowed key', path: ['__proto__'], input: value });
  }
}

const iri = (example = 'http://example.com/path') =>
  formatted(isIri, `must be an IRI with a scheme, such as "${example}"`);
const irl = (example = 'https://example.com/page') =>
  formatted(isIrl, `must be an IRL (an absolute IRI a browser can resolve), such as "${example}"`);
const uuid = formatted(isUuid, 'must be a UUID such as "f8c4f2a6-62f0-4f0a-9a6e-2b4f1c7f2d3e"');
const mbox = formatted(isMailtoIri, 'must be "mailto:" followed by an email address');
const mboxSha1sum = formatted(isSha1Hex, 'must be the SHA-1 of a mailto IRI: 40 hexadecimal digits');
const sha2 = formatted(isSha2Hex, 'must be the SHA-2 of the attachment in hexadecimal (64 digits for SHA-256)');
const duration = formatted(
  isIsoDuration,
  'must be an ISO 8601 duration such as "PT1H30M" or "PT45.5S" (weeks, "P2W", stand alone)',
);
const languageTag = formatted(isLanguageTag, 'must be an RFC 5646 language tag such as "en-US"');
const mediaType = formatted(isMediaType, 'must be an Internet media type such as "application/pdf"');

/** 1.0.3 Part Two §4.2: keys are RFC 5646 tags, values strings. Empty maps are allowed. */
const languageMap = z.preprocess(
  (value, ctx) => {
    rejectProtoKey(value, ctx);
    return value;
  },
  z.record(
    z.string().refine(isLanguageTag, { error: 'an RFC 5646 language tag such as "en-US"' }),
    z.string({ error: 'must be a string' }),
    { error: 'must be a language map, an object such as {"en-US": "passed"}' },
  ),
);

/**
 * 1.0.3 Part Two §4.1: keys are IRIs, values any JSON (nulls allowed). Values are also checked to
 * be plain, bounded JSON (json-value.ts) so that hashing and storing them can never fail.
 */
const extensions = z.preprocess(
  (value, ctx) => {
    rejectProtoKey(value, ctx);
    if (isObjectLike(value)) {
      for (const key of Object.keys(value)) {
        const problem = findJsonProblem(value[key]);
        if (problem) {
          ctx.issues.push({ code: 'custom', message: problem.message, path: [key, ...problem.path], input: value });
          break;
        }
      }
    }
    return value;
  },
  z.record(z.string().refine(isIri, { error: 'an IRI with a scheme, such as "http://example.com/ext"' }), z.unknown(), {
    error: 'must be an extensions object, keyed by IRI',
  }),
);

// ---------------------------------------------------------------------------------------------
// The schemas of one version

/** Inverse Functional Identifiers, 1.0.3 §2.4.2.3. */
const IFI_KEYS = ['mbox', 'mbox_sha1sum', 'openid', 'account'] as const;

function presentIfis(value: Record<string, unknown>): string[] {
  return IFI_KEYS.filter((key) => value[key] !== undefined);
}

function buildStatementSchemas(version: XapiVersion) {
  const v2 = version === '2.0.0';

  const timestamp = formatted(
    (value) => isTimestamp(value, version),
    v2
      ? 'must be an ISO 8601 timestamp with a time zone, such as "2024-05-01T09:30:00.000Z" (xAPI 2.0.0 requires the zone)'
      : 'must be an ISO 8601 timestamp such as "2024-05-01T09:30:00.000Z"',
  );

  /** 1.0.3 §2.4.2.4: an account is a homePage IRL and a name. */
  const account = strict('an account', {
    homePage: irl('https://lms.example.com'),
    name: z.string({ error: 'must be a string (the user name on that system)' }),
  });

  const ifiShape = {
    name: z.string({ error: 'must be a string' }).optional(),
    mbox: mbox.optional(),
    mbox_sha1sum: mboxSha1sum.optional(),
    openid: iri('https://openid.example.com/ada').optional(),
    account: account.optional(),
  };

  /**
   * 1.0.3 §2.4.2.1: an Agent is identified by exactly one IFI. objectType is optional except when
   * the Agent is a statement's object (§2.4.4.2: "MUST specify an objectType").
   */
  const agentOf = <R extends boolean>(objectTypeRequired: R) => {
    const objectType = literal('Agent', 'must be "Agent" (objectType is case-sensitive; Group members are Agents)');
    return strict('an Agent', {
      objectType: (objectTypeRequired ? objectType : objectType.optional()) as R extends true
        ? typeof objectType
        : z.ZodOptional<typeof objectType>,
      ...ifiShape,
    }).superRefine((agent, ctx) => {
      const ifis = presentIfis(agent);
      if (ifis.length === 0) {
        ctx.addIssue({
          code: 'custom',
          message: 'needs an identifier: exactly one of mbox, mbox_sha1sum, openid or account',
          path: [],
        });
      } else if (ifis.length > 1) {
        ctx.addIssue({
          code: 'custom',
          message: `has more than one identifier (${ifis.join(', ')}); an Agent must have exactly one`,
          path: [],
        });
      }
    });
  };
  const agent = agentOf(false);
  const agentAsObject = agentOf(true);

  /**
   * 1.0.3 §2.4.2.2: a Group has objectType "Group"; an identified Group has one IFI and may list
   * members; an anonymous Group has no IFI and MUST list its members. Members are Agents only.
   */
  const group = strict('a Group', {
    objectType: literal('Group'),
    ...ifiShape,
    member: z.array(agent, { error: 'must be an array of Agents' }).optional(),
  }).superRefine((value, ctx) => {
    const ifis = presentIfis(value);
    if (ifis.length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: `has more than one identifier (${ifis.join(', ')}); a Group has at most one`,
        path: [],
      });
    } else if (ifis.length === 0 && value.member === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'is required for an anonymous Group (one with no mbox, mbox_sha1sum, openid or account)',
        path: ['member'],
      });
    }
  });

  const actorError = unionError(
    'must be an Agent or a Group (a JSON object)',
    'must be "Agent" or "Group" (objectType is case-sensitive)',
  );
  const actor = z.discriminatedUnion('objectType', [agent, group], actorError);

  /**
   * 1.0.3 §2.4.9: authority is an Agent, or for 3-legged OAuth an anonymous Group of exactly two
   * Agents (ADL's suites reject identified Groups and Groups of one or three).
   */
  const authorityGroup = group.superRefine((value, ctx) => {
    if (presentIfis(value).length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'is a Group with an identifier; an authority Group must be anonymous (no mbox, mbox_sha1sum, openid or account)',
        path: [],
      });
    } else if (value.member !== undefined && value.member.length !== 2) {
      ctx.addIssue({
        code: 'custom',
        message: `must list exactly two Agents (the OAuth application and the user), got ${value.member.length}`,
        path: ['member'],
      });
    }
  });
  const authority = z.discriminatedUnion('objectType', [agent, authorityGroup], actorError);

  /** 1.0.3 §2.4.3. */
  const verb = strict('a Verb', {
    id: iri('http://adlnet.gov/expapi/verbs/completed'),
    display: languageMap.optional(),
  });

  /** 1.0.3 §2.4.4.1 interaction components. */
  const interactionComponent = strict('an interaction component', {
    id: z.string({ error: 'must be a string' }),
    description: languageMap.optional(),
  });
  const componentList = z.array(interactionComponent, { error: 'must be an array of interaction components' });

  /** 1.0.3 §2.4.4.1 Activity Definition. */
  const activityDefinition = strict('an Activity definition', {
    name: languageMap.optional(),
    description: languageMap.optional(),
    type: iri('http://adlnet.gov/expapi/activities/assessment').optional(),
    moreInfo: irl().optional(),
    interactionType: z
      .enum(INTERACTION_TYPES, { error: `must be one of ${INTERACTION_TYPES.map((t) => `"${t}"`).join(', ')} (case-sensitive)` })
      .optional(),
    correctResponsesPattern: z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' }).optional(),
    choices: componentList.optional(),
    scale: componentList.optional(),
    source: componentList.optional(),
    target: componentList.optional(),
    steps: componentList.optional(),
    extensions: extensions.optional(),
  }).superRefine((definition, ctx) => {
    // 1.0.3 §2.4.4.1.s8 (XAPI-00064): correctResponsesPattern describes the answers of an
    // interaction, so it needs the interactionType that says how to read them.
    if (definition.correctResponsesPattern !== undefined && definition.interactionType === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'is only allowed together with interactionType, and interactionType is missing',
        path: ['correctResponsesPattern'],
      });
    }
    for (const [list, allowed] of Object.entries(COMPONENT_LISTS)) {
      const components = definition[list as keyof typeof COMPONENT_LISTS];
      if (components === undefined) continue;
      const type = definition.interactionType;
      if (type === undefined || !(allowed as readonly string[]).includes(type)) {
        ctx.addIssue({
          code: 'custom',
          message: `is only allowed when interactionType is ${allowed.map((t) => `"${t}"`).join(' or ')}${
            type === undefined ? ', and interactionType is missing' : `, not "${type}"`
          }`,
          path: [list],
        });
        continue;
      }
      // §2.4.4.1.s16.b1: "Within an array of interaction components, all id values MUST be distinct."
      const seen = new Set<string>();
      components.forEach((component, index) => {
        if (seen.has(component.id)) {
          ctx.addIssue({
            code: 'custom',
            message: `repeats the id "${component.id}"; ids within one component list must be distinct`,
            path: [list, index, 'id'],
          });
        }
        seen.add(component.id);
      });
    }
  });

  /** 1.0.3 §2.4.4.1: objectType "Activity" may be left out; it is the default. */
  const activity = strict('an Activity', {
    objectType: literal('Activity').optional(),
    id: iri('http://example.com/activities/course-101'),
    definition: activityDefinition.optional(),
  });

  /** 1.0.3 §2.4.4.3. */
  const statementRef = strict('a StatementRef', {
    objectType: literal('StatementRef'),
    id: uuid,
  });

  /** 1.0.3 §2.4.5.1. */
  const score = strict('a Score', {
    scaled: z.number({ error: 'must be a number' }).min(-1, { error: 'must be between -1 and 1' }).max(1, { error: 'must be between -1 and 1' }).optional(),
    raw: z.number({ error: 'must be a number' }).optional(),
    min: z.number({ error: 'must be a number' }).optional(),
    max: z.number({ error: 'must be a number' }).optional(),
  }).superRefine((value, ctx) => {
    const { raw, min, max } = value;
    // "min: less than max"; equal bounds are let through (a zero-point survey item is real data).
    if (min !== undefined && max !== undefined && min > max) {
      ctx.addIssue({ code: 'custom', message: `must not be greater than max (${max}), got ${min}`, path: ['min'] });
    } else if (raw !== undefined && min !== undefined && raw < min) {
      ctx.addIssue({ code: 'custom', message: `must not be less than min (${min}), got ${raw}`, path: ['raw'] });
    } else if (raw !== undefined && max !== undefined && raw > max) {
      ctx.addIssue({ code: 'custom', message: `must not be greater than max (${max}), got ${raw}`, path: ['raw'] });
    }
  });

  /** 1.0.3 §2.4.5. */
  const result = strict('a Result', {
    score: score.optional(),
    success: z.boolean({ error: 'must be true or false (a JSON boolean, not a string)' }).optional(),
    completion: z.boolean({ error: 'must be true or false (a JSON boolean, not a string)' }).optional(),
    response: z.string({ error: 'must be a string' }).optional(),
    duration: duration.optional(),
    extensions: extensions.optional(),
  });

  /**
   * 1.0.3 §2.4.6.2: each contextActivities value is one Activity or an array of them; the LRS
   * returns arrays (XAPI-00096), so a single Activity is normalised to a one-item array here.
   */
  const contextActivityList = z.preprocess(
    (value) => (isObjectLike(value) ? [value] : value),
    z.array(activity, { error: 'must be an Activity or an array of Activities' }),
  );
  const contextActivities = strict('contextActivities', {
    parent: contextActivityList.optional(),
    grouping: contextActivityList.optional(),
    category: contextActivityList.optional(),
    other: contextActivityList.optional(),
  });

  /** 2.0.0 §2.4.6: relevantTypes, when present, is a non-empty array of IRIs. */
  const relevantTypes = z
    .array(iri('https://example.com/types/role'), { error: 'must be an array of IRIs' })
    .min(1, { error: 'must list at least one IRI when present' });
  const contextAgent = strict('a contextAgent', {
    objectType: literal('contextAgent'),
    agent,
    relevantTypes: relevantTypes.optional(),
  });
  const contextGroup = strict('a contextGroup', {
    objectType: literal('contextGroup'),
    group,
    relevantTypes: relevantTypes.optional(),
  });
  const onlyIn2 = (name: string) =>
    z.custom<never>(() => false, {
      error: `is an xAPI 2.0.0 property; it is not allowed under xAPI 1.0.3 (send X-Experience-API-Version: 2.0.0 to use ${name})`,
    });
  const contextAgents = v2
    ? z.array(contextAgent, { error: 'must be an array of contextAgent objects' })
    : (onlyIn2('contextAgents') as unknown as z.ZodArray<typeof contextAgent>);
  const contextGroups = v2
    ? z.array(contextGroup, { error: 'must be an array of contextGroup objects' })
    : (onlyIn2('contextGroups') as unknown as z.ZodArray<typeof contextGroup>);

  /** 1.0.3 §2.4.6; 2.0.0 adds contextAgents and contextGroups. */
  const context = strict('a Context', {
    registration: uuid.optional(),
    instructor: actor.optional(),
    team: group.optional(),
    contextActivities: contextActivities.optional(),
    revision: z.string({ error: 'must be a string' }).optional(),
    platform: z.string({ error: 'must be a string' }).optional(),
    language: languageTag.optional(),
    statement: statementRef.optional(),
    extensions: extensions.optional(),
    contextAgents: contextAgents.optional(),
    contextGroups: contextGroups.optional(),
  });

  /** 1.0.3 §2.4.11. */
  const attachment = strict('an Attachment', {
    usageType: iri('http://adlnet.gov/expapi/attachments/signature'),
    display: languageMap,
    description: languageMap.optional(),
    contentType: mediaType,
    length: z.number({ error: 'must be a whole number of bytes' }).int({ error: 'must be a whole number of bytes' }).min(0, { error: 'must not be negative' }),
    sha2,
    fileUrl: irl('https://example.com/files/certificate.pdf').optional(),
  });
  const attachments = z.array(attachment, { error: 'must be an array of Attachments' });

  /** Rules that span properties, shared by Statement and SubStatement. */
  const crossPropertyRules = (
    value: { verb: { id: string }; object: { objectType?: string }; context?: { revision?: string; platform?: string } },
    ctx: z.core.$RefinementCtx,
  ) => {
    const objectIsActivity = value.object.objectType === undefined || value.object.objectType === 'Activity';
    // 1.0.3 §2.4.6.s4.b2/b3: revision and platform MUST only be used when the object is an Activity.
    for (const key of ['revision', 'platform'] as const) {
      if (value.context?.[key] !== undefined && !objectIsActivity) {
        ctx.addIssue({
          code: 'custom',
          message: `is only allowed when the object is an Activity, and the object is ${withArticle(value.object.objectType ?? 'Activity')}`,
          path: ['context', key],
        });
      }
    }
    // 1.0.3 §2.3.2.s2.b2: a voiding statement's object MUST be a StatementRef.
    if (value.verb.id === VOIDED_VERB_ID && value.object.objectType !== 'StatementRef') {
      ctx.addIssue({
        code: 'custom',
        message: `must be "StatementRef" when the verb is ${VOIDED_VERB_ID} (a voiding statement names the statement it voids), got ${JSON.stringify(value.object.objectType ?? 'Activity')}`,
        path: ['object', 'objectType'],
      });
    }
  };

  /**
   * 1.0.3 §2.4.4.3 SubStatement: MUST NOT have id, stored, version or authority (strictness
   * rejects them) and MUST NOT contain a SubStatement (its object union leaves that option out).
   */
  const subStatementObject = z.discriminatedUnion(
    'objectType',
    [activity, agentAsObject, group, statementRef],
    unionError(
      'must be an Activity, Agent, Group or StatementRef (a JSON object)',
      'must be "Activity", "Agent", "Group" or "StatementRef" (case-sensitive; a SubStatement cannot contain another SubStatement)',
    ),
  );
  const subStatement = strict('a SubStatement', {
    objectType: literal('SubStatement'),
    actor,
    verb,
    object: subStatementObject,
    result: result.optional(),
    context: context.optional(),
    timestamp: timestamp.optional(),
    attachments: attachments.optional(),
  }).superRefine(crossPropertyRules);

  const statementObject = z.discriminatedUnion(
    'objectType',
    [activity, agentAsObject, group, statementRef, subStatement],
    unionError(
      'must be an Activity, Agent, Group, StatementRef or SubStatement (a JSON object)',
      'must be "Activity", "Agent", "Group", "StatementRef" or "SubStatement" (case-sensitive)',
    ),
  );

  /** 1.0.3 §2.4: actor, verb and object are required; the LRS sets the rest when absent. */
  const statement = strict('a Statement', {
    id: uuid.optional(),
    actor,
    verb,
    object: statementObject,
    result: result.optional(),
    context: context.optional(),
    timestamp: timestamp.optional(),
    stored: timestamp.optional(),
    authority: authority.optional(),
    version: formatted(
      (value) => isStatementVersion(value, version),
      v2 ? 'must be a 1.0.x or 2.0.x version such as "2.0.0"' : 'must be a 1.0.x version such as "1.0.3"',
    ).optional(),
    attachments: attachments.optional(),
  }).superRefine(crossPropertyRules);

  return {
    account,
    agent,
    group,
    actor,
    authority,
    verb,
    activity,
    activityDefinition,
    interactionComponent,
    statementRef,
    subStatement,
    statementObject,
    score,
    result,
    context,
    contextActivities,
    contextAgent,
    contextGroup,
    attachment,
    languageMap,
    extensions,
    statement,
  };
}

export type StatementSchemas = ReturnType<typeof buildStatementSchemas>;

/** Built once per version at load: parsing then does no schema construction. */
export const statementSchemas: Readonly<Record<XapiVersion, StatementSchemas>> = {
  '1.0.3': buildStatementSchemas('1.0.3'),
  '2.0.0': buildStatementSchemas('2.0.0'),
};

/** Types are those of the 2.0.0 schemas, a superset of 1.0.3's (contextAgents, contextGroups). */
export type Statement = z.output<StatementSchemas['statement']>;
export type Account = z.output<StatementSchemas['account']>;
export type Agent = z.output<StatementSchemas['agent']>;
export type Group = z.output<StatementSchemas['group']>;
export type Actor = z.output<StatementSchemas['actor']>;
export type Verb = z.output<StatementSchemas['verb']>;
export type Activity = z.output<StatementSchemas['activity']>;
export type SubStatement = z.output<StatementSchemas['subStatement']>;
export type StatementObject = z.output<StatementSchemas['statementObject']>;
export type Context = z.output<StatementSchemas['context']>;
export type Attachment = z.output<StatementSchemas['attachment']>;
export type LanguageMap = z.output<StatementSchemas['languageMap']>;
