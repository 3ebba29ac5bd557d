/**
 * The `format` parameter of GET statements (xAPI 1.0.3 Part Three §2.1.3):
 * - exact: as stored;
 * - ids: "only include minimum information necessary in Agent, Activity, Verb and Group Objects to
 *   identify them. For Anonymous Groups this means including the minimum information needed to
 *   identify each member": an Agent keeps objectType and its IFI, an identified Group objectType and
 *   its IFI, an anonymous Group objectType and its members (each reduced), a Verb its id and an
 *   Activity its id (ADL's 2.0 suite expects exactly one key on an Activity);
 * - canonical: "Activity Objects and Verbs populated with the canonical definition ... after
 *   applying the language filtering process" (§2.1.3.s4): every language map in Verbs, Activity
 *   definitions (interaction components included) and attachments keeps the single entry that best
 *   matches Accept-Language. Agents and Groups stay as in exact. The definitions are the ones in
 *   the statement itself; an LRS-wide canonical definition per Activity id is not applied here.
 */

import type { Activity, Actor, Agent, Attachment, Context, Group, LanguageMap, Statement, Verb } from './statement-schema';

export type StatementFormat = 'ids' | 'exact' | 'canonical';

type Obj = Record<string, unknown>;

function pruned<T extends Obj>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

// ---------------------------------------------------------------------------------------------
// ids

const IFI_KEYS = ['mbox', 'mbox_sha1sum', 'openid', 'account'] as const;

function idsAgent(agent: Agent): Agent {
  const ifi = IFI_KEYS.find((key) => agent[key] !== undefined);
  return pruned({ objectType: agent.objectType, ...(ifi ? { [ifi]: agent[ifi] } : {}) }) as Agent;
}

function idsActor<T extends Actor | Group | Agent>(actor: T): T {
  if (actor.objectType !== 'Group') return idsAgent(actor as Agent) as T;
  const ifi = IFI_KEYS.find((key) => actor[key] !== undefined);
  if (ifi) return { objectType: 'Group', [ifi]: actor[ifi] } as unknown as T;
  return { objectType: 'Group', member: (actor.member ?? []).map(idsAgent) } as unknown as T;
}

function idsActivity(activity: Activity): Activity {
  return { id: activity.id };
}

function idsContext(context: Context): Context {
  const activities = context.contextActivities;
  return pruned({
    ...context,
    instructor: context.instructor && idsActor(context.instructor),
    team: context.team && idsActor(context.team),
    contextActivities:
      activities &&
      pruned({
        parent: activities.parent?.map(idsActivity),
        grouping: activities.grouping?.map(idsActivity),
        category: activities.category?.map(idsActivity),
        other: activities.other?.map(idsActivity),
      }),
    contextAgents: context.contextAgents?.map((item) => ({ ...item, agent: idsAgent(item.agent) })),
    contextGroups: context.contextGroups?.map((item) => ({ ...item, group: idsActor(item.group) })),
  });
}

function idsObject(object: Statement['object']): Statement['object'] {
  switch (object.objectType) {
    case undefined:
    case 'Activity':
      return idsActivity(object);
    case 'Agent':
    case 'Group':
      return idsActor(object);
    case 'StatementRef':
      return object;
    case 'SubStatement':
      return pruned({
        ...object,
        actor: idsActor(object.actor),
        verb: { id: object.verb.id },
        object: idsObject(object.object) as typeof object.object,
        context: object.context && idsContext(object.context),
      });
  }
}

function formatIds(statement: Statement): Statement {
  return pruned({
    ...statement,
    actor: idsActor(statement.actor),
    verb: { id: statement.verb.id },
    object: idsObject(statement.object),
    context: statement.context && idsContext(statement.context),
    authority: statement.authority && idsActor(statement.authority),
  });
}

// ---------------------------------------------------------------------------------------------
// canonical

/** "en-GB;q=0.8" → { range: "en-gb", q: 0.8 }; ranges with q=0 are "not acceptable" (RFC 2616 §14.4). */
function parseRanges(acceptLanguages: string[]): string[] {
  return acceptLanguages
    .flatMap((entry) => entry.split(','))
    .map((entry, index) => {
      const [range = '', ...params] = entry.trim().split(';');
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const q = qParam === undefined ? 1 : Number(qParam.slice(2));
      return { range: range.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((item) => item.range !== '' && item.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((item) => item.range);
}

/**
 * The key of `map` that best matches the ranges, by RFC 2616 §14.4: a range matches a tag equal to
 * it or beginning with it followed by "-"; "*" matches any. Failing that, a range is shortened
 * (RFC 4647 §3.4 lookup: "en-GB" finds "en"); failing that, the map's first entry.
 */
function pickLanguage(keys: string[], ranges: string[]): string | undefined {
  const lowered = keys.map((key) => key.toLowerCase());
  for (const range of ranges) {
    if (range === '*') return keys[0];
    const exact = lowered.indexOf(range);
    if (exact >= 0) return keys[exact];
    const prefixed = lowered.findIndex((key) => key.startsWith(`${range}-`));
    if (prefixed >= 0) return keys[prefixed];
  }
  for (const range of ranges) {
    const parts = range.split('-');
    while (parts.length > 1) {
      parts.pop();
      const index = lowered.indexOf(parts.join('-'));
      if (index >= 0) return keys[index];
    }
  }
  return keys[0];
}

function canonicalMap(map: LanguageMap | undefined, ranges: string[]): LanguageMap | undefined {
  if (map === undefined) return undefined;
  const key = pickLanguage(Object.keys(map), ranges);
  return key === undefined ? {} : Object.fromEntries([[key, map[key] as string]]);
}

function canonicalVerb(verb: Verb, ranges: string[]): Verb {
  return pruned({ ...verb, display: canonicalMap(verb.display, ranges) });
}

function canonicalActivity(activity: Activity, ranges: string[]): Activity {
  const definition = activity.definition;
  if (definition === undefined) return activity;
  const components = (list: typeof definition.choices) =>
    list?.map((component) => pruned({ ...component, description: canonicalMap(component.description, ranges) }));
  return {
    ...activity,
    definition: pruned({
      ...definition,
      name: canonicalMap(definition.name, ranges),
      description: canonicalMap(definition.description, ranges),
      choices: components(definition.choices),
      scale: components(definition.scale),
      source: components(definition.source),
      target: components(definition.target),
      steps: components(definition.steps),
    }),
  };
}

function canonicalContext(context: Context, ranges: string[]): Context {
  const activities = context.contextActivities;
  if (activities === undefined) return context;
  const list = (items: Activity[] | undefined) => items?.map((activity) => canonicalActivity(activity, ranges));
  return {
    ...context,
    contextActivities: pruned({
      parent: list(activities.parent),
      grouping: list(activities.grouping),
      category: list(activities.category),
      other: list(activities.other),
    }),
  };
}

function canonicalAttachments(attachments: Attachment[] | undefined, ranges: string[]): Attachment[] | undefined {
  return attachments?.map((attachment) =>
    pruned({
      ...attachment,
      display: canonicalMap(attachment.display, ranges) ?? {},
      description: canonicalMap(attachment.description, ranges),
    }),
  );
}

function canonicalObject(object: Statement['object'], ranges: string[]): Statement['object'] {
  switch (object.objectType) {
    case undefined:
    case 'Activity':
      return canonicalActivity(object, ranges);
    case 'SubStatement':
      return pruned({
        ...object,
        verb: canonicalVerb(object.verb, ranges),
        object: canonicalObject(object.object, ranges) as typeof object.object,
        context: object.context && canonicalContext(object.context, ranges),
        attachments: canonicalAttachments(object.attachments, ranges),
      });
    default:
      return object;
  }
}

function formatCanonical(statement: Statement, acceptLanguages: string[]): Statement {
  const ranges = parseRanges(acceptLanguages);
  return pruned({
    ...statement,
    verb: canonicalVerb(statement.verb, ranges),
    object: canonicalObject(statement.object, ranges),
    context: statement.context && canonicalContext(statement.context, ranges),
    attachments: canonicalAttachments(statement.attachments, ranges),
  });
}

/**
 * A stored statement in the requested format. `acceptLanguages` holds the Accept-Language entries
 * (each may carry `;q=`), most preferred first when no q is given; only canonical uses it.
 */
export function formatStatement(statement: Statement, format: StatementFormat, acceptLanguages: string[]): Statement {
  switch (format) {
    case 'exact':
      return statement;
    case 'ids':
      return formatIds(statement);
    case 'canonical':
      return formatCanonical(statement, acceptLanguages);
  }
}
