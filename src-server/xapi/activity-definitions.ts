/**
 * The Activity definitions a statement carries, for the LRS's canonical definition of each
 * Activity (xAPI 1.0.3 Part Three §2.5 Activities Resource; 2.0.0 Part Four §4.1.6.4).
 *
 * 1.0.3 Part Two §2.4.4.1.s4.b3 / 2.0.0 §4.2.4.3: "Upon receiving a Statement with an Activity
 * Definition that differs from the one stored, an LRS SHOULD decide whether it considers the
 * Learning Record Provider to have the authority to change the definition and SHOULD update the
 * stored Activity Definition accordingly". Lore's decision: every key of a Store speaks for that
 * Store, so every accepted statement updates its Store's definitions. The update is a merge
 * (storage.ts, ActivityDefinitionRow): language maps and extensions are merged key by key — two
 * statements describing one Activity in two languages give a definition in both (XAPI-00254) —
 * and every other property takes the newest value.
 *
 * Where definitions are read from: the object when it is an Activity, the four contextActivities
 * lists, and the same places in a SubStatement (an Activity is the same Activity wherever it is
 * named, 1.0.3 §2.4.4.1.s4.b2). Activities without a definition, or with an empty one, add nothing.
 */

import type { Activity, Context, Statement, StatementObject, SubStatement } from './statement-schema';

export interface ActivityDefinitionEntry {
  activityId: string;
  definition: Record<string, unknown>;
}

const CONTEXT_LISTS = ['parent', 'grouping', 'category', 'other'] as const;

function isActivity(object: StatementObject | SubStatement['object']): object is Activity {
  return object.objectType === undefined || object.objectType === 'Activity';
}

function addActivity(into: ActivityDefinitionEntry[], activity: Activity): void {
  const definition = activity.definition;
  if (definition === undefined || Object.keys(definition).length === 0) return;
  into.push({ activityId: activity.id, definition: definition as Record<string, unknown> });
}

function addContext(into: ActivityDefinitionEntry[], context: Context | undefined): void {
  const lists = context?.contextActivities;
  if (lists === undefined) return;
  for (const name of CONTEXT_LISTS) for (const activity of lists[name] ?? []) addActivity(into, activity);
}

/**
 * Every Activity definition in a validated statement, in the order a reader meets them (object,
 * context, then the SubStatement's); where one Activity is defined twice, the later entry is
 * merged over the earlier one.
 */
export function extractActivityDefinitions(statement: Statement): ActivityDefinitionEntry[] {
  const found: ActivityDefinitionEntry[] = [];
  const object = statement.object;
  if (isActivity(object)) addActivity(found, object);
  addContext(found, statement.context);
  if (object.objectType === 'SubStatement') {
    if (isActivity(object.object)) addActivity(found, object.object);
    addContext(found, object.context);
  }
  return found;
}
