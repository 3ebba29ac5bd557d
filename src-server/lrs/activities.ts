/**
 * The Activities and Agents Resources of a Store (xAPI 1.0.3 Part Three §2.4, §2.5; 2.0.0 Part
 * Four §4.1.6.3, §4.1.6.4), and which definitions a statement may change.
 */
import { hasScope } from '../auth/api-key-check';
import type { ActivityDefinitionRow, ApiKeyRecord, Storage, StoreRecord } from '../storage/storage';
import { extractActivityDefinitions } from '../xapi/activity-definitions';
import type { Statement } from '../xapi/statement-schema';

/** What GET activities answers: an Activity Object (1.0.3 Part Two §2.4.4.1). */
interface ActivityObject {
  objectType: 'Activity';
  id: string;
  definition?: Record<string, unknown>;
}

export interface ActivityReadResult {
  activity: ActivityObject;
  /** When its definition last changed; null when the Store has none. */
  updated: string | null;
}

/**
 * The definitions a statement sent with `key` updates. 1.0.3 Part Three §4.2 scope "define":
 * "(re)Define Activities and Actors. If storing a Statement when this is not granted, ids will
 * be saved ... but [the LRS] SHOULD NOT update its canonical representation of any Actors or
 * Activities." So a key without "define" (or "all") records statements but changes no definition.
 */
export function activityDefinitionsFor(key: ApiKeyRecord, statement: Statement): ActivityDefinitionRow[] {
  return hasScope(key, 'define') ? extractActivityDefinitions(statement) : [];
}

/**
 * Who may read Activities and Agents: a key that can read statements (they are what the
 * definitions come from), or one that may define them.
 */
export function canReadDefinitions(key: ApiKeyRecord): boolean {
  return hasScope(key, 'statements/read') || hasScope(key, 'define');
}

/**
 * The Store's Activity Object for an id: the merged definition when statements gave one, else
 * just the id — 1.0.3 §2.5.s2.b1: "If an LRS does not have a canonical definition of the Activity
 * to return, the LRS SHOULD* still return an Activity Object when queried."
 */
export async function readActivity(storage: Storage, store: StoreRecord, activityId: string): Promise<ActivityReadResult> {
  const record = await storage.findActivity(store.id, activityId);
  const activity: ActivityObject = { objectType: 'Activity', id: activityId };
  if (record) activity.definition = record.definition;
  return { activity, updated: record?.updated ?? null };
}
