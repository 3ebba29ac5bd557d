/**
 * The values a statement is found by (xAPI 1.0.3 Part Three §2.1.3, GET statements filters).
 *
 * primary terms are what the plain filters match:
 * - agent: "the specified Agent or Group is the Actor or Object of the Statement", and "Groups
 *   that have members which match the specified Agent ... are considered a match" — so the members
 *   of an actor or object Group (identified or anonymous) are primary too.
 * - activity: "the Object of the Statement is an Activity with the specified id".
 * related terms are what related_agents / related_activities add:
 * - agents: "Actor, Object, Authority, Instructor, Team, or any of these properties in a contained
 *   SubStatement"; 2.0.0's contextAgents and contextGroups are context agents of the same kind and
 *   are included; members of every such Group count, as above.
 * - activities: "the Object, any of the context Activities, or any of those properties in a
 *   contained SubStatement".
 * A term that is both primary and related is kept once, as primary.
 */

import { agentKey } from './agent-key';
import { VOIDED_VERB_ID } from './statement-schema';
import type { Activity, Actor, Agent, Context, Group, Statement, StatementObject, SubStatement } from './statement-schema';

export interface IndexTerm {
  kind: 'agent' | 'activity';
  value: string;
  primary: boolean;
}

export interface StatementIndex {
  verbId: string;
  /** context.registration, lower-cased. */
  registration: string | null;
  /** The statement this one voids: verb voided and object a StatementRef (1.0.3 §2.3.2). */
  voidsStatementId: string | null;
  /**
   * The statement this one targets with a StatementRef object, voiding or not. §2.1.3 "Filter
   * Conditions for StatementRefs": a targeting statement matches a filter its target matches.
   */
  targetStatementId: string | null;
  terms: IndexTerm[];
}

class TermSet {
  private readonly byKey = new Map<string, IndexTerm>();

  add(kind: IndexTerm['kind'], value: string | null, primary: boolean): void {
    if (value === null) return;
    const key = `${kind}\u0000${value}`;
    const existing = this.byKey.get(key);
    if (existing) existing.primary ||= primary;
    else this.byKey.set(key, { kind, value, primary });
  }

  /** An Agent, or a Group and each of its members. */
  addActor(actor: Actor | Agent | Group | undefined, primary: boolean): void {
    if (actor === undefined) return;
    this.add('agent', agentKey(actor), primary);
    if (actor.objectType === 'Group') for (const member of actor.member ?? []) this.add('agent', agentKey(member), primary);
  }

  addActivity(activity: Activity, primary: boolean): void {
    this.add('activity', activity.id, primary);
  }

  list(): IndexTerm[] {
    return [...this.byKey.values()];
  }
}

function isActivity(object: StatementObject | SubStatement['object']): object is Activity {
  return object.objectType === undefined || object.objectType === 'Activity';
}

function addContext(terms: TermSet, context: Context | undefined): void {
  if (context === undefined) return;
  terms.addActor(context.instructor, false);
  terms.addActor(context.team, false);
  for (const contextAgent of context.contextAgents ?? []) terms.addActor(contextAgent.agent, false);
  for (const contextGroup of context.contextGroups ?? []) terms.addActor(contextGroup.group, false);
  const activities = context.contextActivities;
  if (activities !== undefined) {
    for (const list of [activities.parent, activities.grouping, activities.category, activities.other]) {
      for (const activity of list ?? []) terms.addActivity(activity, false);
    }
  }
}

/** Index values of a validated (and prepared) statement. */
export function extractIndexTerms(statement: Statement): StatementIndex {
  const terms = new TermSet();
  terms.addActor(statement.actor, true);
  const object = statement.object;
  if (isActivity(object)) terms.addActivity(object, true);
  else if (object.objectType === 'Agent' || object.objectType === 'Group') terms.addActor(object, true);
  terms.addActor(statement.authority, false);
  addContext(terms, statement.context);

  if (object.objectType === 'SubStatement') {
    terms.addActor(object.actor, false);
    const inner = object.object;
    if (isActivity(inner)) terms.addActivity(inner, false);
    else if (inner.objectType === 'Agent' || inner.objectType === 'Group') terms.addActor(inner, false);
    addContext(terms, object.context);
  }

  const target = object.objectType === 'StatementRef' ? object.id.toLowerCase() : null;
  return {
    verbId: statement.verb.id,
    registration: statement.context?.registration?.toLowerCase() ?? null,
    voidsStatementId: statement.verb.id === VOIDED_VERB_ID ? target : null,
    targetStatementId: target,
    terms: terms.list(),
  };
}
