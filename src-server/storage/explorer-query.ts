/**
 * How both implementations read an Explorer search whose filters may hold several values (a name
 * typed in the Explorer that matched several learners, verbs or Activities): the values as lists,
 * and which filter drives the search, so that both walk the same kind of index.
 *
 * One value drives as it always did: its index, in seq order. Several values of one filter are
 * read newest first across each value's index (a merge of seq-ordered lists): a sort of every row
 * the values hold would grow with the Store, the merge grows with the page. Of two term filters the
 * one with fewer values drives and the other is checked on the rows it yields, as a single filter
 * is; a registration (one attempt: few rows) drives before any of them.
 */
import type { ExplorerQuery } from './storage';

export interface ExplorerLists {
  agents?: readonly string[];
  activities?: readonly string[];
  verbs?: readonly string[];
}

function listOf(value: string | readonly string[] | undefined): readonly string[] | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? [value] : [...new Set(value)];
}

export function explorerLists(q: ExplorerQuery): ExplorerLists {
  return { agents: listOf(q.agent), activities: listOf(q.activityId), verbs: listOf(q.verbId) };
}

/** A filter given as an empty list: nothing can match. */
export function matchesNothing(lists: ExplorerLists): boolean {
  return lists.agents?.length === 0 || lists.activities?.length === 0 || lists.verbs?.length === 0;
}

/** The filter whose index the statement half walks; null: a column index (registration, warned, voided, Store). */
export type ExplorerDrive = { kind: 'agent' | 'activity' | 'verb'; values: readonly string[] } | null;

export function explorerDrive(q: ExplorerQuery, lists: ExplorerLists): ExplorerDrive {
  if (q.registration !== undefined) return null;
  const { agents, activities, verbs } = lists;
  if (agents && (!activities || agents.length <= activities.length)) return { kind: 'agent', values: agents };
  if (activities) return { kind: 'activity', values: activities };
  // Warned and voided statements are few: their partial indexes beat walking a verb's rows.
  if (verbs && !q.warned && q.status !== 'voided') return { kind: 'verb', values: verbs };
  return null;
}
