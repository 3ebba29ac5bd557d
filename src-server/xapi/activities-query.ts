/**
 * The query of GET activities (xAPI 1.0.3 Part Three §2.5; 2.0.0 Part Four §4.1.6.4): one
 * required parameter, activityId, an IRI (§2.5.s1.table1.row1).
 */

import { isIri } from './formats';
import { describeValue } from './issue';
import type { XapiIssue } from './issue';
import { unknownParameterIssue } from './query-params';

export type ActivitiesQueryResult = { ok: true; activityId: string } | { ok: false; issue: XapiIssue };

export function parseActivitiesQuery(params: Record<string, string | undefined>): ActivitiesQueryResult {
  const unknown = unknownParameterIssue(params, ['activityId'], 'GET activities');
  if (unknown) return { ok: false, issue: unknown };
  const activityId = params.activityId;
  if (activityId === undefined) {
    return {
      ok: false,
      issue: { field: 'activityId', message: 'activityId is required: the IRI of the Activity, such as "http://example.com/courses/module-1"' },
    };
  }
  if (!isIri(activityId)) {
    return {
      ok: false,
      issue: {
        field: 'activityId',
        message: `activityId must be an IRI with a scheme, such as "http://example.com/courses/module-1", got ${describeValue(activityId)}`,
      },
    };
  }
  // Compared exactly as sent, as the activity filter of GET statements compares it.
  return { ok: true, activityId };
}
